#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkdracut.sh OUT.img BINARY [CONFDIR]
# Build a real dracut initramfs (the host's dracut, x86_64 only) holding
# the 55preempt-policy module as `make -C initrd install` lays it out, the
# static preempt-policy BINARY, and the policy from CONFDIR
# (preempt-policy.conf, preempt-policy.d/) if given.
#
# Nothing of the host's is touched: the module is installed into a scratch
# DESTDIR, dracut gets a scratch dracutbasedir (links to the host's dracut
# plus our module), an empty --confdir, its own --tmpdir and --no-kernel
# (the test kernels have virtio-blk, ext4 and devtmpfs built in).
set -eu
[ $# -ge 2 ] || { echo "usage: mkdracut.sh OUT.img BINARY [CONFDIR]" >&2; exit 2; }
out=$1 bin=$2 confdir=${3:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
hostdracut=/usr/lib/dracut
command -v dracut >/dev/null || { echo "mkdracut.sh: dracut is not installed" >&2; exit 1; }
[ -x "$bin" ] || { echo "mkdracut.sh: no binary $bin" >&2; exit 1; }
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s -C "$top/initrd" install DESTDIR="$work/inst" PREFIX=/usr >/dev/null

base=$work/dracut
mkdir -p "$base/modules.d" "$work/conf.d" "$work/tmp" "$work/empty"
for f in "$hostdracut"/*; do
	[ "${f##*/}" = modules.d ] || ln -s "$f" "$base/${f##*/}"
done
for m in "$hostdracut"/modules.d/*; do
	ln -s "$m" "$base/modules.d/${m##*/}"
done
cp -a "$work/inst/usr/lib/dracut/modules.d/55preempt-policy" "$base/modules.d/"

# dracut.conf is sourced by dracut; module-setup.sh reads these.
{
	echo "preempt_policy_bin=\"$bin\""
	echo "preempt_policy_confdir=\"${confdir:-$work/empty}\""
} >"$work/dracut.conf"

mkdir -p "$(dirname "$out")"
dracutbasedir=$base dracut --quiet --force --no-kernel --no-hostonly \
	--no-hostonly-cmdline --conf "$work/dracut.conf" \
	--confdir "$work/conf.d" --tmpdir "$work/tmp" \
	--modules "base rootfs-block preempt-policy" \
	--omit "systemd dracut-systemd plymouth i18n" \
	--add-drivers "" --no-compress --no-early-microcode \
	"$out.tmp" "7.3.0-rig" >&2
mv "$out.tmp" "$out"
