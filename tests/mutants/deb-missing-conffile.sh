# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The package is built without /etc/preempt-policy.conf, so it has no
# conffile and an admin's edits have nothing to be kept in.
# suites: 15-deb
printf '\nexecute_after_dh_auto_install:\n\trm -f debian/preempt-policy/etc/preempt-policy.conf\n' >>debian/rules
