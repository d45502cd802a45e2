# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared helpers for the rig scripts (sourced, POSIX sh).

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# cache_dir: the cache of trees, kernels, Debian packages and guest roots:
# $PREEMPT_CACHE, else $XDG_CACHE_HOME/preempt-modes, else
# ~/.cache/preempt-modes.
cache_dir() {
	printf '%s\n' "${PREEMPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preempt-modes}"
}

# debs_dir ARCH: the cache's directory of ARCH's Debian packages
# (fetch-debs.sh's DEBDIR for every builder), made if missing, as an
# absolute path.
debs_dir() {
	mkdir -p "$(cache_dir)/debs/$1" && (cd "$(cache_dir)/debs/$1" && pwd)
}

# cache_key: the cache key of standard input, 16 hex digits of its
# sha256 (a cached artefact is rebuilt when its inputs' key changes).
cache_key() {
	sha256sum | cut -c1-16
}

# The arch table, the one place that knows each kernel ARCH (arm64,
# x86_64): arch_info ARCH FIELD prints
#   uname     the machine name uname -m prints
#   debarch   the Debian architecture (dpkg, apt)
#   triplet   the GNU triplet: Debian's multiarch directory, the cross
#             toolchain's prefix
#   image     the boot image below a kernel build directory
#   qemu      the QEMU system emulator
#   qemupkg   the Debian package that ships it
#   machine   QEMU's machine and CPU options (launch-vm.sh)
#   console   the kernel's serial console device
#   virtio    the transport suffix of QEMU's virtio devices (virtio-serial-
#             SUFFIX, virtio-blk-SUFFIX): device (MMIO) or pci
arch_info() {
	case "$1" in
	arm64) set -- "$2" aarch64 arm64 aarch64-linux-gnu \
		arch/arm64/boot/Image qemu-system-aarch64 qemu-system-arm \
		"-M virt -cpu cortex-a72" ttyAMA0 device ;;
	x86_64) set -- "$2" x86_64 amd64 x86_64-linux-gnu \
		arch/x86/boot/bzImage qemu-system-x86_64 qemu-system-x86 \
		"-M pc -cpu qemu64" ttyS0 pci ;;
	*) die "unsupported ARCH '$1' (arm64, x86_64)" ;;
	esac
	case "$1" in
	uname) echo "$2" ;;
	debarch) echo "$3" ;;
	triplet) echo "$4" ;;
	image) echo "$5" ;;
	qemu) echo "$6" ;;
	qemupkg) echo "$7" ;;
	machine) echo "$8" ;;
	console) echo "$9" ;;
	virtio) echo "${10}" ;;
	*) die "arch_info: unknown field '$1'" ;;
	esac
}

# check_arch ARCH: exit with an error unless the table knows ARCH.
check_arch() {
	arch_info "$1" uname >/dev/null
}

# host_arch: the kernel ARCH of this machine (uname -m when the table does
# not know it).
host_arch() {
	_ha=$(uname -m)
	for _ha_a in arm64 x86_64; do
		if [ "$(arch_info "$_ha_a" uname)" = "$_ha" ]; then
			echo "$_ha_a"
			return 0
		fi
	done
	echo "$_ha"
}

# cross_compile_for ARCH: the prefix of ARCH's toolchain: empty on an ARCH
# host (native), else the cross toolchain's (TRIPLET-).
cross_compile_for() {
	_cc_t=$(arch_info "$1" triplet) || exit 1
	[ "$(uname -m)" = "$(arch_info "$1" uname)" ] || printf '%s-' "$_cc_t"
}

# guest_cc ARCH: the C compiler for ARCH's (static) guest programs: gcc on
# an ARCH host, TRIPLET-gcc on any other.
guest_cc() {
	_gc=$(cross_compile_for "$1") || exit 1
	echo "${_gc}gcc"
}

# debarch_of ARCH: ARCH's Debian architecture.
debarch_of() {
	arch_info "$1" debarch
}

# kernel_image_for ARCH: ARCH's boot image path inside a build directory.
kernel_image_for() {
	arch_info "$1" image
}

# deb_file DEBDIR PKG VERSION: the .deb of PKG at VERSION in DEBDIR (apt's
# file name, an epoch's ':' as %3a), or nothing when there is none.
# Globbing is on for the lookup whatever the caller's set -f.
deb_file() {
	_df_file=$1/$(printf '%s_%s_' "$2" "$3" | sed 's/:/%3a/')
	_df=
	case $- in
	*f*) _df_noglob=1 ;;
	*) _df_noglob= ;;
	esac
	set +f
	for _df_f in "$_df_file"*.deb; do
		[ -f "$_df_f" ] && _df=$_df_f
	done
	[ -z "$_df_noglob" ] || set -f
	printf '%s' "$_df"
}

# The Debian releases whose entries in the machine's apt sources name the
# archive (debian_mirror): bullseye to trixie, the next two and the suite
# aliases. Entries of older releases point at the archive of old releases,
# which has none of the suites the rig fetches.
DEBIAN_RELEASES="bullseye bookworm trixie forky duke sid experimental
rc-buggy oldoldstable oldstable stable testing unstable"

# apt_source_paths: set _asf_list and _asf_parts to the machine's
# sources.list and sources.list.d/, where apt-config says they are
# (APT_CONFIG with another Dir::Etc points the tests at fake ones).
apt_source_paths() {
	command -v apt-config >/dev/null ||
		die "apt-config is missing: the Debian mirror is read from apt's sources (or set PREEMPT_DEBIAN_MIRROR)"
	_asf=$(apt-config shell _asf_list Dir::Etc::SourceList/f \
		_asf_parts Dir::Etc::SourceParts/d) ||
		die "apt-config could not read apt's configuration"
	_asf_list='' _asf_parts=''
	eval "$_asf"
}

# apt_source_files: the machine's apt source files in apt's order, one a
# line: the one-line sources.list, then sources.list.d's *.list and
# *.sources by name (apt skips other names).
apt_source_files() {
	apt_source_paths
	[ ! -f "$_asf_list" ] || printf '%s\n' "$_asf_list"
	[ -z "$_asf_parts" ] || [ ! -d "$_asf_parts" ] ||
		find "${_asf_parts%/}/" -mindepth 1 -maxdepth 1 \
			\( -name '*.list' -o -name '*.sources' \) |
		LC_ALL=C sort | grep -E '/[A-Za-z0-9_-][A-Za-z0-9_.-]*$' |
		while IFS= read -r _asf_f; do
			[ ! -f "$_asf_f" ] || printf '%s\n' "$_asf_f"
		done
}

# apt_deb_entries FILE: the enabled "deb" entries of the apt source FILE
# (deb822 if it ends in .sources, else one-line), one line each:
# URI<TAB>SUITES<TAB>COMPONENTS, the lists blank-separated. A deb822
# stanza gives its first URI; deb-src, flat repositories (no component)
# and comments are left out.
apt_deb_entries() {
	case $1 in
	*.sources)
		awk '
		function flush() {
			if (f["types"] ~ /(^|[ \t])deb([ \t]|$)/ &&
			    tolower(f["enabled"]) !~ /^(no|false|off|without|disable)$/ &&
			    f["uris"] != "" && f["components"] != "") {
				split(f["uris"], u, /[ \t]+/)
				print u[1] "\t" f["suites"] "\t" f["components"]
			}
			split("", f)
			key = ""
		}
		/^#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ {
			if (key != "") {
				v = $0
				gsub(/^[ \t]+|[ \t]+$/, "", v)
				f[key] = (f[key] == "" ? v : f[key] " " v)
			}
			next
		}
		{
			i = index($0, ":")
			if (i == 0) next
			key = tolower(substr($0, 1, i - 1))
			v = substr($0, i + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", v)
			f[key] = v
		}
		END { flush() }' "$1"
		;;
	*)
		awk '
		{ sub(/#.*/, ""); sub(/[ \t]+$/, "") }
		$1 != "deb" { next }
		{
			sub(/^[ \t]*deb[ \t]+/, "")
			if (substr($0, 1, 1) == "[" && !sub(/^\[[^]]*\][ \t]*/, ""))
				next
			n = split($0, w, /[ \t]+/)
			if (n < 3) next
			c = w[3]
			for (i = 4; i <= n; i++) c = c " " w[i]
			print w[1] "\t" w[2] "\t" c
		}' "$1"
		;;
	esac
}

# debian_mirror [archive|security]: the URI of the Debian archive the rig
# fetches from (the directory holding dists/ and pool/), without a
# trailing slash, for the private apt states below.
#   archive   $PREEMPT_DEBIAN_MIRROR, else the first entry of the
#             machine's apt sources (apt_source_files) of type deb with
#             component main and a suite of a Debian release
#             (DEBIAN_RELEASES, bare or -updates, -backports,
#             -proposed-updates): other repositories (a third party's own
#             suite, or its bookworm without main) are skipped.
#   security  the security archive (bookworm-security):
#             $PREEMPT_DEBIAN_SECURITY_MIRROR, else the first such entry
#             of a -security suite (not when PREEMPT_DEBIAN_MIRROR is set:
#             it stands for the whole of the machine's sources), else the
#             archive's URI with its last component "debian" made
#             "debian-security". That assumes the layout of Debian's own
#             mirror network and of a caching proxy in front of it, where
#             both archives sit side by side; any other URI fails, naming
#             the variable.
# Fails naming the files read when they hold no such entry. The downloads
# go through apt-get with the machine's apt.conf (private_apt_opts changes
# only the sources and the state), so its proxy (Acquire::http::Proxy),
# transports and auth.conf apply as to the machine's own sources.
debian_mirror() {
	_dm_area=${1:-archive}
	case $_dm_area in
	archive) _dm_uri=${PREEMPT_DEBIAN_MIRROR:-} ;;
	security) _dm_uri=${PREEMPT_DEBIAN_SECURITY_MIRROR:-} ;;
	*) die "debian_mirror: unknown area '$_dm_area' (archive, security)" ;;
	esac
	if [ -z "$_dm_uri" ] && [ -z "${PREEMPT_DEBIAN_MIRROR:-}" ]; then
		_dm_files=$(apt_source_files) || exit 1
		_dm_uri=$(printf '%s\n' "$_dm_files" |
			while IFS= read -r _dm_f; do
				[ -z "$_dm_f" ] || apt_deb_entries "$_dm_f"
			done |
			awk -F '\t' -v area="$_dm_area" -v releases="$DEBIAN_RELEASES" '
			BEGIN {
				n = split(releases, r, /[ \t\n]+/)
				for (i = 1; i <= n; i++) known[r[i]] = 1
			}
			$1 ~ /^cdrom:/ || $3 !~ /(^| )main( |$)/ { next }
			{
				ns = split($2, s, / +/)
				for (i = 1; i <= ns; i++) {
					name = s[i]
					sec = sub(/-security$/, "", name)
					sub(/-(updates|backports|backports-sloppy|proposed-updates)$/, "", name)
					if ((name in known) && (area == "security") == sec) {
						print $1
						exit
					}
				}
			}')
		if [ -z "$_dm_uri" ] && [ "$_dm_area" = archive ]; then
			if [ -n "$_dm_files" ]; then
				_dm_read="read: $(printf '%s' "$_dm_files" | tr '\n' ' ')"
			else
				apt_source_paths
				_dm_read="none in $_asf_list, ${_asf_parts%/}/*.list, ${_asf_parts%/}/*.sources"
			fi
			die "no Debian archive in the apt sources ($_dm_read); set PREEMPT_DEBIAN_MIRROR to the archive's URI (the directory holding dists/ and pool/)"
		fi
	fi
	if [ -z "$_dm_uri" ]; then
		_dm_uri=$(debian_mirror archive) || exit 1
		case ${_dm_uri%/} in
		*/debian) _dm_uri=${_dm_uri%/}-security ;;
		*) die "no Debian security archive in the apt sources, and the archive's URI ${_dm_uri%/} does not end in /debian to find it beside: set PREEMPT_DEBIAN_SECURITY_MIRROR" ;;
		esac
	fi
	printf '%s\n' "${_dm_uri%/}"
}

# apt_proxy_env: export apt.conf's proxies (Acquire::http::Proxy,
# Acquire::https::Proxy; not DIRECT) as http_proxy and https_proxy, for
# the fetchers that do not read apt.conf (debootstrap's wget, a chroot's
# apt). A proxy already in the environment wins.
apt_proxy_env() {
	_ape=$(apt-config shell _ape_http Acquire::http::Proxy \
		_ape_https Acquire::https::Proxy) ||
		die "apt-config could not read apt's configuration"
	_ape_http='' _ape_https=''
	eval "$_ape"
	case $_ape_http in
	'' | DIRECT) ;;
	*) http_proxy=${http_proxy:-$_ape_http} ;;
	esac
	case $_ape_https in
	'' | DIRECT) ;;
	*) https_proxy=${https_proxy:-$_ape_https} ;;
	esac
	[ -z "${http_proxy:-}" ] || export http_proxy
	[ -z "${https_proxy:-}" ] || export https_proxy
}

# private_apt_opts STATE DEBARCH: the apt-get/apt-cache options of a private
# apt state in STATE (STATE/sources.list, written by private_sources, its
# own lists and cache) for Debian architecture DEBARCH. apt uses none of
# the machine's own sources, status and locks (debian_mirror reads the
# sources for the mirror's URI only). Creates STATE's directories; prints
# the options on one line, for unquoted expansion (paths without blanks).
private_apt_opts() {
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
	printf '%s ' \
		"-o Dir::Etc::SourceList=$1/sources.list" \
		"-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$1/lists" \
		"-o Dir::Cache=$1/cache -o Dir::State::Status=/dev/null" \
		"-o APT::Architecture=$2 -o APT::Architectures=$2" \
		"-o Debug::NoLocking=1 -o APT::Sandbox::User=root -q"
	echo
}

# private_sources STATE: STATE/sources.list from standard input. When its
# lines change (another mirror, another suite), the old index is dropped:
# the callers refresh the index when STATE/lists has no recent one, and
# apt ignores the lists of a URI no longer in the sources.
private_sources() {
	_ps=$(cat)
	if [ ! -f "$1/sources.list" ] || [ "$(cat "$1/sources.list")" != "$_ps" ]; then
		find "$1/lists" -maxdepth 1 -type f -delete 2>/dev/null || true
		printf '%s\n' "$_ps" >"$1/sources.list"
	fi
}

# kernel_apt_opts STATE DEBARCH: private_apt_opts (above) for the suites
# that carry Debian's 7.x kernels, sid and trixie-backports, with STATE's
# sources.list written and its index refreshed when older than 6 hours.
# Prints the options; fails (the reason on stderr) when the update does.
kernel_apt_opts() {
	ka_opts=$(private_apt_opts "$1" "$2")
	ka_mirror=$(debian_mirror) || exit 1
	private_sources "$1" <<EOS
deb [arch=$2] $ka_mirror sid main
deb [arch=$2] $ka_mirror trixie-backports main
EOS
	if [ -z "$(find "$1/lists" -maxdepth 1 -name '*Packages*' -mmin -360 2>/dev/null)" ]; then
		# shellcheck disable=SC2086
		apt-get $ka_opts update >/dev/null 2>&1 ||
			die "apt-get update of the private sources in $1 ($ka_mirror) failed"
	fi
	echo "$ka_opts"
}

# sched_kselftests_install ARCH KSRC KOBJ OUTPUT INSTALL_PATH:
#   make -C KSRC/tools/testing/selftests TARGETS=sched install
# for ARCH: static programs built into OUTPUT, the test module built against
# the kernel objects in KOBJ, installed into INSTALL_PATH. Make's output goes
# to standard output and error; the status is make's.
sched_kselftests_install() {
	_st=$2/tools/testing/selftests
	_cross=$(cross_compile_for "$1")
	# Module objects of another architecture may be left in the tree.
	make -s -C "$_st/sched/test_modules" KDIR="$3" ARCH="$1" \
		CROSS_COMPILE="$_cross" clean >/dev/null 2>&1 || true
	# O= as well as KDIR=: the kselftest Makefile hands its O (the source
	# tree when none is given) down to the module's kbuild, which would
	# then look for the configuration in the source tree.
	make -s -C "$_st" TARGETS=sched ARCH="$1" CROSS_COMPILE="$_cross" \
		USERLDFLAGS=-static KDIR="$3" O="$3" OUTPUT="$4" \
		INSTALL_PATH="$5" install
}
