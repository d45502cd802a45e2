# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The part of dracut's /lib/dracut-lib.sh the preempt-policy hook uses,
# for guests without dracut (the arm64 busybox initramfs): getarg,
# getargbool, info, warn, with dracut's semantics for these cases
# (last occurrence wins; "KEY" alone is an empty value; getargbool's
# 0/no/off is false).

getarg() {
	_st_key=${1%=}
	_st_found=1
	_st_val=
	read -r _st_cmdline </proc/cmdline || _st_cmdline=
	for _st_w in $_st_cmdline; do
		case "$_st_w" in
		"$_st_key="*)
			_st_val=${_st_w#*=}
			_st_found=0
			;;
		"$_st_key")
			_st_val=
			_st_found=0
			;;
		esac
	done
	[ "$_st_found" -eq 0 ] || return 1
	[ -z "$_st_val" ] || echo "$_st_val"
	return 0
}

getargbool() {
	_st_default=$1
	shift
	_st_b=$(getarg "$@") || _st_b=${_st_b:-"$_st_default"}
	case "$_st_b" in
	0 | no | off) return 1 ;;
	esac
	return 0
}

info() {
	echo "<30>dracut: $*" >/dev/kmsg
}

warn() {
	echo "<28>dracut Warning: $*" >/dev/kmsg
}
