#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package (debian/, make deb): built for the host's
# architecture and cross-built for the other one (arm64 on amd64), lintian
# clean (no error, no warning), its file list the one make install lays
# out (both ways, both architectures) with the same contents, and
# installed, upgraded from an older build, removed and purged in a
# throwaway root with its own dpkg database, piuparts-style: the root's
# files listed before and after, nothing left behind, the conffile kept
# on remove, the initramfs trigger and the unit's enablement seen.
#
# The maintainer scripts run on this machine (dpkg --force-script-
# chrootless, DPKG_ROOT set; a chroot would need a root with a shell and
# dpkg's helpers), with stand-ins for systemctl, deb-systemd-invoke,
# update-initramfs and dracut first in PATH, so that nothing reaches the
# machine's own services or initramfs. Only the host's package is
# installed: the other's scripts are the same files (checked), its binary
# does not run here.
. tests/lib/common.sh

work=$BUILD/deb-check
host=$(dpkg --print-architecture)
other=arm64
[ "$host" != arm64 ] || other=amd64
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
older=$version~older1

deb() { printf '%s/pkg/preempt-policy_%s_%s.deb' "$work" "$version" "$1"; }
has() { case " $built " in *" $1 "*) return 0 ;; esac; return 1; }

# The binary is the architecture's: a cross build that fell back to the
# host's compiler would ship an amd64 tool in the arm64 package.
elf_of() {
	case "$1" in
	amd64) echo 'x86-64' ;;
	arm64) echo 'ARM aarch64' ;;
	*) echo "$1" ;;
	esac
}
rdpkg() {
	# The output of this step only (--more: and of the one before).
	if [ "$1" = --more ]; then
		shift
	else
		: >"$work/dpkg.out"
	fi
	PATH=$stub:$PATH dpkg --root="$root" --force-script-chrootless \
		--force-not-root --log="$work/dpkg.log" "$@" >>"$work/dpkg.out" 2>&1
}
status_of() {
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status} ${Version}' "$1" 2>/dev/null
}
triggered() { grep -c update-initramfs "$work/triggered" 2>/dev/null || echo 0; }
# The root's entries with type and, for files, contents; dpkg's own
# database is dpkg's business.
snapshot() {
	(cd "$root" && find . -mindepth 1 ! -path './var/lib/dpkg/*' -printf '%y %P\n' |
		sort | while read -r t p; do
			case "$t" in
			f) echo "f $p $(md5sum <"$p" | cut -d' ' -f1)" ;;
			l) echo "l $p -> $(readlink "$p")" ;;
			*) echo "$t $p" ;;
			esac
		done)
}

suite_setup() {
	rm -rf "$work"
	mkdir -p "$work"
}

# deb_build: both packages built, each with its own architecture's binary.
deb_build() {
	# --- build ------------------------------------------------------------------
	built=
	for arch in "$host" "$other"; do
		aopt=
		[ "$arch" = "$host" ] || aopt=" -a $arch"
		if out=$("$RIG/build-deb.sh" "$work/pkg" "$arch" 2>&1) &&
			[ -f "$work/pkg/preempt-policy_${version}_$arch.deb" ]; then
			ok "dpkg-buildpackage -us -uc -b$aopt: preempt-policy_${version}_$arch.deb"
			built="$built $arch"
		else
			not_ok "dpkg-buildpackage for $arch"
			printf '%s\n' "$out" | tail -n 30 | sed 's/^/#   /'
		fi
	done
	for arch in $built; do
		x=$work/x-$arch
		rm -rf "$x"
		dpkg-deb -x "$(deb "$arch")" "$x"
		what=$(file -b "$x/usr/sbin/preempt-policy")
		case "$what" in
		*"ELF 64-bit"*"$(elf_of "$arch")"*)
			ok "$arch package: /usr/sbin/preempt-policy is $(elf_of "$arch") ($(printf '%s' "$what" | cut -d, -f1-2))"
			;;
		*)
			not_ok "$arch package: /usr/sbin/preempt-policy is not $(elf_of "$arch"): $what"
			;;
		esac
	done
}

deb_lintian() {
	# --- lintian ----------------------------------------------------------------
	# Overrides only with a written reason: every override line follows a
	# comment (the SPDX line is none), with no blank line between.
	bad=
	for f in debian/*lintian-overrides debian/source/lintian-overrides; do
		[ -f "$f" ] || continue
		bad="$bad$(awk -v f="$f" '/SPDX-License-Identifier/ || /^[[:space:]]*$/ { c = 0; next }
			/^#/ { c = 1; next }
			{ if (!c) print " " f ":" NR ": " $0 }' "$f")"
	done
	if [ -z "$bad" ]; then
		ok "every lintian override has a comment saying why"
	else
		not_ok "lintian overrides without a reason:$bad"
	fi
	dsc=$work/pkg/preempt-policy_$version.dsc
	for arch in source $built; do
		changes=$work/pkg/preempt-policy_${version}_$arch.changes
		[ "$arch" != source ] || changes=$dsc
		if [ ! -f "$changes" ]; then
			not_ok "lintian $arch: no $changes"
			continue
		fi
		out=$(lintian --fail-on error,warning --display-info "$changes" 2>&1)
		rc=$?
		tags=$(printf '%s\n' "$out" | grep -E '^[EW]: ')
		if [ "$rc" -eq 0 ] && [ -z "$tags" ]; then
			ok "lintian $arch: no error, no warning$(printf '%s\n' "$out" |
				grep -cE '^[IPN]: ' | sed 's/^0$//; s/^[1-9].*/ (& info or notes)/')"
		else
			not_ok "lintian $arch: exit $rc"
			printf '%s\n' "$out" | grep -v 'root privileges' | head -n 40 | sed 's/^/#   /'
		fi
	done
}

deb_file_list() {
	# --- the file list: make install's, both ways ---------------------------------
	# What the package must add to make install's files: Debian's copyright
	# and changelog (and lintian overrides, if debian/ has any); man pages are compressed (dh_compress; the policy's
	# documentation copy is below its 4 KiB threshold, checked by the
	# comparison). Directories count as entries too (an empty
	# /etc/preempt-policy.d is part of the layout).
	dest=$work/destdir
	if out=$(make -s install DESTDIR="$dest" 2>&1); then
		(cd "$dest" && find . -mindepth 1 \( -type d -printf 'd %P\n' \) -o \
			\( -type l -printf 'l %P\n' \) -o \( -type f -printf 'f %P\n' \)) |
			sed -e 's|^\(f usr/share/man/.*\)$|\1.gz|' >"$work/want.raw"
		{
			cat "$work/want.raw"
			echo "f usr/share/doc/preempt-policy/copyright"
			echo "f usr/share/doc/preempt-policy/changelog.gz"
			# lintian's overrides of the binary package, if there are any
			if [ -f debian/preempt-policy.lintian-overrides ]; then
				printf 'd %s\n' usr/share/lintian usr/share/lintian/overrides
				echo "f usr/share/lintian/overrides/preempt-policy"
			fi
		} | sort -u >"$work/want"
		for arch in $built; do
			dpkg-deb -c "$(deb "$arch")" |
				awk '{ t = substr($1, 1, 1); p = $6; sub(/^\.\//, "", p);
					sub(/\/$/, "", p); if (p == "" || p == ".") next;
					if (t == "-") t = "f"; print t " " p }' |
				sort -u >"$work/got-$arch"
			only_install=$(comm -23 "$work/want" "$work/got-$arch")
			only_deb=$(comm -13 "$work/want" "$work/got-$arch")
			if [ -z "$only_install$only_deb" ]; then
				ok "$arch: dpkg -c holds every entry make install lays out and nothing else ($(grep -c '^[fl] ' "$work/want") files)"
			else
				not_ok "$arch: dpkg -c and make install differ"
				[ -z "$only_install" ] || diag "installed by make install, not in the package:" "$only_install"
				[ -z "$only_deb" ] || diag "in the package, not installed by make install:" "$only_deb"
			fi
		done
	else
		not_ok "make install DESTDIR=$dest"
		diag "$out"
	fi

	# Same contents: every file but the tool (stripped in the package), man
	# pages uncompressed; and the same executable bits.
	for arch in $built; do
		x=$work/x-$arch
		differ=
		for f in $(cd "$dest" && find . -type f ! -path ./usr/sbin/preempt-policy -printf '%P\n'); do
			case "$f" in
			usr/share/man/*)
				if ! gzip -dc "$x/$f.gz" 2>/dev/null | cmp -s - "$dest/$f"; then
					differ="$differ $f.gz"
				fi
				continue
				;;
			esac
			cmp -s "$x/$f" "$dest/$f" || differ="$differ $f"
			[ "$(stat -c %a "$x/$f" 2>/dev/null)" = "$(stat -c %a "$dest/$f")" ] ||
				differ="$differ $f(mode)"
		done
		if [ -z "$differ" ]; then
			ok "$arch: the package's files have make install's contents and modes"
		else
			not_ok "$arch: files differ from make install's:$differ"
		fi
	done
}

deb_control() {
	# --- control information ------------------------------------------------------
	for arch in $built; do
		ctl=$work/ctl-$arch
		rm -rf "$ctl"
		dpkg-deb -e "$(deb "$arch")" "$ctl"
		bad=
		[ "$(cat "$ctl/conffiles" 2>/dev/null)" = /etc/preempt-policy.conf ] ||
			bad="$bad conffiles:'$(cat "$ctl/conffiles" 2>/dev/null)'"
		grep -qx 'activate-noawait update-initramfs' "$ctl/triggers" 2>/dev/null ||
			bad="$bad no-update-initramfs-trigger"
		rec=$(dpkg-deb -f "$(deb "$arch")" Recommends)
		sug=$(dpkg-deb -f "$(deb "$arch")" Suggests)
		dep=$(dpkg-deb -f "$(deb "$arch")" Depends)
		printf '%s\n' "$rec" | tr ',' '\n' | grep -q 'initramfs-tools.*|.*dracut\|dracut.*|.*initramfs-tools' ||
			bad="$bad Recommends-without-'initramfs-tools | dracut':'$rec'"
		printf '%s\n' "$sug" | tr ',' '\n' | grep -qx ' *u-boot-tools *' ||
			bad="$bad u-boot-tools-not-suggested:'$sug'"
		case "$dep,$rec" in
		*u-boot-tools*) bad="$bad u-boot-tools-more-than-suggested" ;;
		esac
		if [ "$arch" != "$host" ] && has "$host"; then
			for s in postinst postrm prerm preinst triggers conffiles; do
				[ ! -f "$ctl/$s" ] && [ ! -f "$work/ctl-$host/$s" ] && continue
				cmp -s "$ctl/$s" "$work/ctl-$host/$s" || bad="$bad $s-differs-from-$host"
			done
		fi
		if [ -z "$bad" ]; then
			ok "$arch control: conffile /etc/preempt-policy.conf, update-initramfs trigger, Recommends '$rec', Suggests '$sug'"
		else
			not_ok "$arch control:$bad"
		fi
	done
}

# deb_lifecycle: install, upgrade, remove, purge in a throwaway root.
deb_lifecycle() {
	# --- install, upgrade, remove, purge in a throwaway root --------------------
	if ! has "$host"; then
		not_ok "install/upgrade/purge: no $host package"
		return 1
	fi
	if out=$("$RIG/build-deb.sh" --version "$older" "$work/old" "$host" 2>&1) &&
		[ -f "$work/old/preempt-policy_${older}_$host.deb" ] &&
		dpkg --compare-versions "$older" lt "$version"; then
		diag "built the older version $older (< $version) for the upgrade"
	else
		not_ok "building the older version $older"
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   /'
	fi
	old_deb=$work/old/preempt-policy_${older}_$host.deb

	root=$work/root
	# The tool's own fixtures: a PostgreSQL root whose admin opted in to a
	# rule and the live /proc and /sys of its two postmasters (whose data
	# directories are this root's), so that the installed tool records a
	# decision after a cluster started.
	fx=policy/tests/fixtures
	cp -R "$fx/root-pg-big" "$root"
	# Directories every Debian system has (systemd's; piuparts' base system
	# has them too): deb-systemd-helper creates them on install and, rightly,
	# does not remove them on purge.
	mkdir -p "$root/etc/preempt-policy.d" "$root/var/lib/dpkg/info" \
		"$root/var/lib/dpkg/updates" "$root/run" "$root/etc/systemd/system" \
		"$root/var/lib/systemd"
	echo 'rule pg-fell-back: pg_live_fallbacks > 0 -> none' \
		>"$root/etc/preempt-policy.d/60-live.conf"
	# The package's dependencies, as this machine has them (their files are
	# not needed: nothing runs inside the root).
	: >"$root/var/lib/dpkg/status"
	for p in $(dpkg-deb -f "$(deb "$host")" Depends | tr ',' '\n' |
		sed 's/[[:space:]]*(.*//; s/[[:space:]|].*//; s/^[[:space:]]*//'); do
		dpkg-query -s "$p:$host" 2>/dev/null || dpkg-query -s "$p"
		echo
		# and an empty file list, so that dpkg does not warn
		: >"$root/var/lib/dpkg/info/$(dpkg-query -W -f='${binary:Package}' "$p:$host" 2>/dev/null ||
			dpkg-query -W -f='${binary:Package}' "$p").list"
	done >>"$root/var/lib/dpkg/status"

	# Stand-ins for what must not touch this machine, and a package with
	# interest in update-initramfs, as initramfs-tools and dracut have: its
	# postinst counts the trigger runs.
	stub=$work/stub
	mkdir -p "$stub"
	for c in systemctl deb-systemd-invoke update-initramfs dracut; do
		printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$work/host-calls" >"$stub/$c"
		chmod 0755 "$stub/$c"
	done
	: >"$work/host-calls"
	fake=$work/fake-initramfs
	mkdir -p "$fake/DEBIAN"
	cat >"$fake/DEBIAN/control" <<-EOF
	Package: fake-initramfs-generator
	Version: 1
	Architecture: all
	Maintainer: preempt-modes tests <tests@localhost>
	Description: counts update-initramfs trigger runs (15-deb)
	EOF
	echo 'interest-noawait update-initramfs' >"$fake/DEBIAN/triggers"
	# shellcheck disable=SC2016 # $1 and $2 are the postinst's
	printf '#!/bin/sh\n[ "$1" != triggered ] || echo "$2" >>"%s"\nexit 0\n' \
		"$work/triggered" >"$fake/DEBIAN/postinst"
	chmod 0755 "$fake/DEBIAN/postinst"
	dpkg-deb -b --root-owner-group "$fake" "$work/fake.deb" >/dev/null

	unit_link=etc/systemd/system/sysinit.target.wants/preempt-policy.service
	timer_link=etc/systemd/system/timers.target.wants/preempt-policy-check.timer

	rdpkg -i "$work/fake.deb" || not_ok "installing the trigger counter"
	snapshot >"$work/before"

	# Install the older version, edit the conffile, upgrade.
	if rdpkg -i "$old_deb" && [ "$(status_of preempt-policy)" = "install ok installed $older" ] &&
		[ "$(triggered)" -eq 1 ] && [ -L "$root/$unit_link" ] && [ -L "$root/$timer_link" ] &&
		[ -x "$root/usr/sbin/preempt-policy" ] && [ -f "$root/etc/preempt-policy.conf" ]; then
		ok "install $older: installed, update-initramfs triggered once, the unit and the timer enabled ($unit_link, $timer_link)"
	else
		not_ok "install $older: status '$(status_of preempt-policy)', triggered $(triggered), links $(ls -l "$root/$unit_link" "$root/$timer_link" 2>&1)"
		tail -n 20 "$work/dpkg.out" | sed 's/^/#   /'
	fi
	echo "# edited by the admin (15-deb)" >>"$root/etc/preempt-policy.conf"
	cp "$root/etc/preempt-policy.conf" "$work/edited.conf"
	if rdpkg -i "$(deb "$host")" &&
		[ "$(status_of preempt-policy)" = "install ok installed $version" ] &&
		[ "$(triggered)" -eq 2 ] && cmp -s "$root/etc/preempt-policy.conf" "$work/edited.conf" &&
		[ -L "$root/$unit_link" ]; then
		ok "upgrade $older -> $version: the admin's edit of the conffile kept, triggered again, the unit still enabled"
	else
		not_ok "upgrade $older -> $version: status '$(status_of preempt-policy)', triggered $(triggered)"
		tail -n 20 "$work/dpkg.out" | sed 's/^/#   /'
	fi

	# The state the installed tool and the boot hooks write: the decision
	# kept after a cluster started (the tool's live fixture), the last run's
	# status in /run.
	"$root/usr/sbin/preempt-policy" --proc "$fx/live/proc" --sys "$fx/live/sys" \
		--root "$root" --kmsg "$work/kmsg" after-start >"$work/after-start.out" 2>&1
	mkdir -p "$root/run/preempt-policy"
	echo 0 >"$root/run/preempt-policy/status"
	if [ -f "$root/var/lib/preempt-policy/state" ]; then
		diag "state written by the installed tool: $(head -n 1 "$work/after-start.out")"
	else
		not_ok "the installed tool wrote no state: $(cat "$work/after-start.out")"
	fi

	if rdpkg -r preempt-policy &&
		[ "$(status_of preempt-policy)" = "deinstall ok config-files $version" ] &&
		cmp -s "$root/etc/preempt-policy.conf" "$work/edited.conf" &&
		[ ! -e "$root/usr/sbin/preempt-policy" ] && [ "$(triggered)" -eq 3 ]; then
		ok "remove: the edited conffile kept, the tool gone, update-initramfs triggered"
	else
		not_ok "remove: status '$(status_of preempt-policy)', conffile $(cmp "$root/etc/preempt-policy.conf" "$work/edited.conf" 2>&1 || true), triggered $(triggered)"
		tail -n 20 "$work/dpkg.out" | sed 's/^/#   /'
	fi
	rdpkg -P preempt-policy
	snapshot >"$work/after"
	if [ -z "$(status_of preempt-policy)" ] && cmp -s "$work/before" "$work/after"; then
		ok "purge: nothing left behind (the root's $(wc -l <"$work/before") entries as before install; state in /var/lib and /run gone)"
	else
		not_ok "purge left the root different from before install (status '$(status_of preempt-policy)')"
		diff "$work/before" "$work/after" | grep '^[<>]' | head -n 30 | sed 's/^/#   /'
	fi

	# The current version on its own: install, purge.
	if rdpkg -i "$(deb "$host")" && [ "$(status_of preempt-policy)" = "install ok installed $version" ] &&
		rdpkg --more -P preempt-policy && snapshot >"$work/after2" && cmp -s "$work/before" "$work/after2"; then
		ok "install $version on a clean root, purge: nothing left behind"
	else
		not_ok "install $version, purge: status '$(status_of preempt-policy)'"
		diff "$work/before" "$work/after2" 2>&1 | grep '^[<>]' | head -n 30 | sed 's/^/#   /'
	fi

	# The initramfs is the trigger's to rebuild: no maintainer script called
	# update-initramfs or dracut itself.
	if grep -q '^update-initramfs\|^dracut' "$work/host-calls"; then
		not_ok "the maintainer scripts called the initramfs generator directly"
		sed 's/^/#   /' "$work/host-calls"
	else
		ok "the maintainer scripts leave the initramfs to the trigger (no direct update-initramfs or dracut)"
	fi
}

suite_run() {
	deb_build
	deb_lintian
	deb_file_list
	deb_control
	deb_lifecycle
}

suite_main
