/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal JSON string output; the tool only ever writes JSON. */
#ifndef PREEMPT_POLICY_JSON_H
#define PREEMPT_POLICY_JSON_H

#include <stdio.h>

/* Write @s as a JSON string literal, escaping quotes and control bytes. */
void json_string(FILE *out, const char *s);

#endif
