#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dracut module 55preempt-policy: put preempt-policy, its policy and a
# pre-pivot hook into the initramfs, so the preemption mode is chosen from
# the real root's workload before the real root's init starts.
#
# dracut.conf(.d) variables (all optional):
#   preempt_policy_bin=PATH      the binary to install (default: the first
#                                of @SBINDIR@, /usr/sbin, /usr/local/sbin)
#   preempt_policy_confdir=DIR   where preempt-policy.conf and
#                                preempt-policy.d/ come from (default
#                                $dracutsysrootdir/etc)
# shellcheck disable=SC2154 # moddir, dracutsysrootdir, initdir: set by dracut

pp_module_bin() {
	if [ -n "${preempt_policy_bin:-}" ]; then
		[ -x "$preempt_policy_bin" ] && echo "$preempt_policy_bin"
		return
	fi
	for _pp_b in "${dracutsysrootdir:-}@SBINDIR@/preempt-policy" \
		"${dracutsysrootdir:-}/usr/sbin/preempt-policy" \
		"${dracutsysrootdir:-}/usr/local/sbin/preempt-policy"; do
		if [ -x "$_pp_b" ]; then
			echo "$_pp_b"
			return
		fi
	done
}

# Included by default when the tool is installed; otherwise not.
check() {
	[ -n "$(pp_module_bin)" ] || return 1
	return 0
}

depends() {
	echo base
	return 0
}

install() {
	_pp_bin=$(pp_module_bin)
	if [ -z "$_pp_bin" ]; then
		derror "preempt-policy: no preempt-policy binary found"
		return 1
	fi
	inst_binary "$_pp_bin" /usr/sbin/preempt-policy || return 1
	inst_simple "$moddir/preempt-policy-lib.sh" \
		/lib/preempt-policy/preempt-policy-lib.sh || return 1
	# The hook needs these; base has them, -o in case it ever does not.
	inst_multiple -o sleep sed cat rm mkdir mount umount
	_pp_etc=${preempt_policy_confdir:-${dracutsysrootdir:-}/etc}
	if [ -f "$_pp_etc/preempt-policy.conf" ]; then
		inst_simple "$_pp_etc/preempt-policy.conf" /etc/preempt-policy.conf
	fi
	for _pp_f in "$_pp_etc"/preempt-policy.d/*.conf; do
		[ -f "$_pp_f" ] || continue
		inst_simple "$_pp_f" "/etc/preempt-policy.d/${_pp_f##*/}"
	done
	# After 98usrmount (pre-pivot 50): /usr is mounted by then.
	inst_hook pre-pivot 60 "$moddir/preempt-policy-hook.sh"
}
