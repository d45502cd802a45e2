/* SPDX-License-Identifier: GPL-2.0 */
/* --output-dir: send this run's standard output and error to files. */
#ifndef PREEMPT_POLICY_OUTPUT_DIR_H
#define PREEMPT_POLICY_OUTPUT_DIR_H

/*
 * Create @dir (mode 0755; its parent must exist) unless it is there, and
 * point standard output at @dir/out and standard error at @dir/err, both
 * made anew (O_EXCL|O_NOFOLLOW after unlinking what was there).  A @dir
 * that is a symlink is refused (-ENOTDIR).  The initramfs hooks use it so that they need not run
 * mkdir(1) on every boot.  Returns 0, or a negative errno; when the
 * directory or a file cannot be made, both streams are left as they were.
 */
int output_dir_redirect(const char *dir);

#endif
