#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the parity checks (tests/suites/40-boot.sh): what a kernel
# without the series' option shows of the preemption mode where upstream
# has an answer, booted with preempt=none. One "WHAT: RESULT" line each;
# the host compares them with upstream's. Every write probe starts from a
# mode set by an exact write, so that one refused probe does not shift the
# results of the next ones. ./write-mode (write-mode.c) makes one write(2)
# and prints its return value.
debugfs=/sys/kernel/debug/sched/preempt
current() { sed -n 's/.*(\([a-z]*\)).*/\1/p' "$debugfs"; }

echo "kernel log: $(dmesg | sed -n 's/^\[[^]]*\] //; /Dynamic Preempt/p' |
	tr '\n' '|' | sed 's/|$//')"
printf 'debugfs sched/preempt: "%s"\n' "$(cat "$debugfs" 2>&1)"
if [ -e /sys/kernel/preempt/mode ]; then
	echo "/sys/kernel/preempt/mode: present"
else
	echo "/sys/kernel/preempt/mode: absent"
fi

# shown TEXT: TEXT with its newlines as <LF>: the host's TAP lines pass
# through echo, which would turn a \n back into a newline.
shown() { printf '%s' "$1" | sed 's/\\n/<LF>/g'; }

# probe FROM TEXT: write TEXT (write-mode's escapes) to debugfs in mode FROM.
probe() {
	set_from=$(./write-mode "$debugfs" "$1")
	if [ "$set_from" != "${#1}" ] || [ "$(current)" != "$1" ]; then
		echo "write \"$(shown "$2")\" in $1: could not set $1 first (write: $set_from, mode: $(current))"
		return
	fi
	echo "write \"$(shown "$2")\" in $1: $(./write-mode "$debugfs" "$2"), mode $(current)"
}
probe lazy none
probe lazy voluntary
probe lazy ' full'
probe lazy 'full '
probe full 'lazy\n'
# Longer than upstream's 15-byte buffer: cut to 15 bytes, then stripped.
probe lazy 'full            '
