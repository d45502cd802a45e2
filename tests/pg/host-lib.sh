# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Host-side helpers for the PostgreSQL and benchmark guests (sourced from
# the repository's top directory after tests/lib/common.sh).

# guest_live OUT LOG GUEST-RUN-ARGS...: run tests/rig/guest-run.sh with
# --log LOG, its output into OUT, and meanwhile print the guest's progress
# lines (console lines with the @@run@@ marker) as they arrive. Returns
# guest-run.sh's exit status.
guest_live() {
	gl_out=$1 gl_log=$2
	shift 2
	: >"$gl_log"
	"$RIG/guest-run.sh" --log "$gl_log" "$@" >"$gl_out" 2>"$gl_out.err" &
	gl_pid=$!
	gl_seen=0
	while kill -0 "$gl_pid" 2>/dev/null; do
		sleep 2
		gl_n=$(wc -l <"$gl_log")
		if [ "$gl_n" -gt "$gl_seen" ]; then
			sed -n "$((gl_seen + 1)),${gl_n}p" "$gl_log" |
				sed -n 's/^.*@@run@@ /    /p'
			gl_seen=$gl_n
		fi
	done
	gl_rc=0
	wait "$gl_pid" || gl_rc=$?
	sed -n "$((gl_seen + 1)),\$p" "$gl_log" | sed -n 's/^.*@@run@@ /    /p'
	return "$gl_rc"
}
