#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dracut module 55preempt-policy: put preempt-policy and a pre-pivot hook
# into the initramfs, so the preemption mode is chosen from the real root's
# workload before the real root's init starts.
#
# Optional: in an image only when asked for (add_dracutmodules+=
# " preempt-policy ", --add preempt-policy) or, in hostonly mode, when the
# host has the tool installed; never in a kdump image.
#
# dracut.conf(.d) variables (both optional) name paths on the system the
# image is built for, like every other path here: with --sysroot they are
# read below $dracutsysrootdir.
#   preempt_policy_bin=PATH      the binary to install (default: the first
#                                of @SBINDIR@, /usr/sbin, /usr/local/sbin)
#   preempt_policy_confdir=DIR   where preempt-policy.conf and
#                                preempt-policy.d/ come from in hostonly
#                                mode (default /etc)
# shellcheck disable=SC2154 # moddir, dracutsysrootdir, hostonly: dracut's

# pp_module_bin: the binary's path on the build host (sysroot included).
pp_module_bin() {
	local b
	if [[ -n ${preempt_policy_bin-} ]]; then
		b=${dracutsysrootdir-}$preempt_policy_bin
		[[ -x $b ]] && echo "$b"
		return 0
	fi
	for b in @SBINDIR@ /usr/sbin /usr/local/sbin; do
		if [[ -x ${dracutsysrootdir-}$b/preempt-policy ]]; then
			echo "${dracutsysrootdir-}$b/preempt-policy"
			return 0
		fi
	done
	return 0
}

check() {
	# A crash kernel has no workload to choose a mode for.
	[[ ${IN_KDUMP-} == 1 ]] && return 1
	[[ -n $(pp_module_bin) ]] || return 1
	# hostonly: the host uses it (the tool is installed).
	[[ -n ${hostonly-} ]] && return 0
	return 255
}

depends() {
	echo base
	return 0
}

install() {
	local bin etc f
	bin=$(pp_module_bin)
	if [[ -z $bin ]]; then
		derror "preempt-policy: no preempt-policy binary found${preempt_policy_bin:+ at $preempt_policy_bin}"
		return 1
	fi
	inst_binary "$bin" /usr/sbin/preempt-policy || return 1
	inst_simple "$moddir/preempt-policy-lib.sh" \
		/lib/preempt-policy/preempt-policy-lib.sh || return 1
	# What the library runs besides the tool (base has them all).
	inst_multiple mkdir rm mount umount cat
	# The host's policy is host configuration: hostonly images only, as
	# host files (-H), and only the fallback for a root that has none.
	if [[ -n ${hostonly-} ]]; then
		etc=${dracutsysrootdir-}${preempt_policy_confdir:-/etc}
		if [[ -f $etc/preempt-policy.conf ]]; then
			inst_simple -H "$etc/preempt-policy.conf" /etc/preempt-policy.conf
		fi
		for f in "$etc"/preempt-policy.d/*.conf; do
			[[ -f $f ]] || continue
			inst_simple -H "$f" "/etc/preempt-policy.d/${f##*/}"
		done
	fi
	# After 98usrmount (pre-pivot 50): /usr is mounted by then.
	inst_hook pre-pivot 60 "$moddir/preempt-policy-hook.sh"
}
