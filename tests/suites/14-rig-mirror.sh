#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The rig's Debian mirror (debian_mirror of tests/rig/lib.sh) comes from the
# machine's apt sources: here from fake ones (APT_CONFIG moves apt's
# Dir::Etc to a scratch directory), in deb822 and one-line form, both, none,
# and under the override variables, each with the exact URI it must give;
# apt.conf's proxy handed to the fetchers that do not read apt.conf; a
# private apt state's index dropped when its mirror changes. And no Debian
# archive host is named in the tree: a site behind its own mirror or proxy
# runs the rig unchanged.
. tests/lib/common.sh

suite_setup() {
	etc=$(mktemp -d) || bail "mktemp -d for the fake apt configurations"
}

suite_cleanup() {
	[ -z "${etc:-}" ] || rm -rf "$etc"
}

# fake_apt NAME: an empty fake /etc/apt, $etc/NAME, with the apt.conf that
# points apt-config at it ($etc/NAME/apt.conf, for APT_CONFIG).
fake_apt() {
	mkdir -p "$etc/$1/apt.conf.d" "$etc/$1/sources.list.d"
	printf 'Dir::Etc "%s";\n' "$etc/$1" >"$etc/$1/apt.conf"
}

# mirror_of NAME AREA [VAR=VALUE...]: debian_mirror AREA on the fake apt
# configuration NAME in a fresh shell, with only the override variables
# given; its standard output in mo_out, its error in mo_err, its status in
# mo_rc.
mirror_of() {
	mo_name=$1 mo_area=$2
	shift 2
	mo_err=$etc/$mo_name.err
	mo_rc=0
	# shellcheck disable=SC2016 # expanded by the fresh shell
	mo_out=$(env -u PREEMPT_DEBIAN_MIRROR -u PREEMPT_DEBIAN_SECURITY_MIRROR \
		APT_CONFIG="$etc/$mo_name/apt.conf" "$@" \
		sh -c '. tests/rig/lib.sh && debian_mirror "$1"' sh "$mo_area" \
		2>"$mo_err") || mo_rc=$?
}

# expect_uri DESC NAME AREA URI [VAR=VALUE...]: debian_mirror AREA on NAME
# succeeds and prints exactly URI.
expect_uri() {
	eu_desc=$1 eu_name=$2 eu_area=$3 eu_uri=$4
	shift 4
	mirror_of "$eu_name" "$eu_area" "$@"
	[ "$mo_rc" = 0 ] && [ "$mo_out" = "$eu_uri" ]
	result $? "$eu_desc: $eu_uri" \
		"$(printf 'wanted %s, got "%s" (exit %s)\n' "$eu_uri" "$mo_out" "$mo_rc"; cat "$mo_err")"
}

# expect_error DESC NAME AREA TEXT...: debian_mirror AREA on NAME fails,
# prints nothing on standard output and every TEXT in its error.
expect_error() {
	ee_desc=$1 ee_name=$2 ee_area=$3
	shift 3
	mirror_of "$ee_name" "$ee_area"
	ee_r=0
	if [ "$mo_rc" = 0 ] || [ -n "$mo_out" ]; then
		ee_r=1
	fi
	ee_missing=
	for t in "$@"; do
		grep -qF -- "$t" "$mo_err" || ee_missing="$ee_missing [$t]"
	done
	[ -z "$ee_missing" ] || ee_r=1
	result $ee_r "$ee_desc" \
		"$(printf 'exit %s, stdout "%s", missing from the error: %s\n' "$mo_rc" "$mo_out" "$ee_missing"; cat "$mo_err")"
}

# The fixtures: hosts under .example (RFC 2606), never a registry's.
make_fixtures() {
	# deb822 only: a third party's repository sorts first, the security
	# stanza comes before the archive, then a deb-src stanza, a disabled
	# one, and the archive with a comment and its two URIs and its suites on
	# continuation lines.
	fake_apt deb822
	cat >"$etc/deb822/sources.list.d/a-vendor.sources" <<'EOF'
Types: deb
URIs: https://vendor.example/node_20.x
Suites: nodistro
Components: main
EOF
	cat >"$etc/deb822/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://sec822.mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb-src
URIs: http://src.mirror.example/debian
Suites: bookworm
Components: main

Types: deb
Enabled: no
URIs: http://disabled.mirror.example/debian
Suites: bookworm
Components: main

Types: deb deb-src
# a comment inside the stanza
URIs:
 http://one.mirror.example/debian/
 http://two.mirror.example/debian
Suites: bookworm
 bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	# One-line only: comments, deb-src, options in brackets, third
	# parties with bookworm but no main, and with main but their own
	# suite.
	fake_apt oneline
	cat >"$etc/oneline/sources.list" <<'EOF'
# deb http://commented.mirror.example/debian bookworm main
deb-src http://src.mirror.example/debian bookworm main
deb [arch=amd64 signed-by=/etc/apt/keyrings/docker.asc] https://docker.example/linux/debian bookworm stable
deb http://pgdg.example/pub/repos/apt bookworm-pgdg main
deb [ arch=amd64,arm64 ] http://list.mirror.example/debian/ bookworm main contrib # the archive
deb [arch=amd64] http://seclist.mirror.example/debian-security trixie-security main
EOF
	# Both: sources.list first, then sources.list.d by name, *.list and
	# *.sources alike (apt's order).
	fake_apt both
	echo 'deb http://first.mirror.example/debian trixie main' \
		>"$etc/both/sources.list"
	printf 'Types: deb\nURIs: http://second.mirror.example/debian\nSuites: trixie\nComponents: main\n' \
		>"$etc/both/sources.list.d/debian.sources"
	fake_apt parts
	echo 'deb https://docker.example/linux/debian trixie stable' \
		>"$etc/parts/sources.list"
	cp "$etc/both/sources.list.d/debian.sources" "$etc/parts/sources.list.d/"
	echo 'deb http://local.mirror.example/debian sid main' \
		>"$etc/parts/sources.list.d/00-local.list"
	echo 'deb http://ignored.mirror.example/debian sid main' \
		>"$etc/parts/sources.list.d/zz.list.disabled"
	# None: only third parties; and no file at all.
	fake_apt none
	echo 'deb https://docker.example/linux/debian bookworm stable' \
		>"$etc/none/sources.list"
	cp "$etc/deb822/sources.list.d/a-vendor.sources" "$etc/none/sources.list.d/"
	fake_apt empty
	# The archive alone, on a path ending in debian or not.
	fake_apt nosec
	echo 'deb http://plain.mirror.example/debian bookworm main' \
		>"$etc/nosec/sources.list"
	fake_apt nosecpath
	echo 'deb http://plain.mirror.example/repo bookworm main' \
		>"$etc/nosecpath/sources.list"
}

mirror_parsing() {
	need "the fake apt configurations" make_fixtures
	expect_uri "deb822: the first enabled deb stanza of a Debian release, its first URI" \
		deb822 archive http://one.mirror.example/debian
	expect_uri "deb822: the security stanza" \
		deb822 security http://sec822.mirror.example/debian-security
	expect_uri "one-line: the deb line of a Debian release with main, options and comment stripped" \
		oneline archive http://list.mirror.example/debian
	expect_uri "one-line: the security line" \
		oneline security http://seclist.mirror.example/debian-security
	expect_uri "sources.list before sources.list.d" \
		both archive http://first.mirror.example/debian
	expect_uri "sources.list.d by name, .list and .sources alike" \
		parts archive http://local.mirror.example/debian
	expect_uri "no security entry: beside the archive's /debian" \
		nosec security http://plain.mirror.example/debian-security
	expect_error "no Debian entry: an error naming the files it read and the variable" \
		none archive "$etc/none/sources.list" \
		"$etc/none/sources.list.d/a-vendor.sources" PREEMPT_DEBIAN_MIRROR
	expect_error "no apt source file at all: an error naming where it looked and the variable" \
		empty archive "none in $etc/empty/sources.list, $etc/empty/sources.list.d/*.list" \
		PREEMPT_DEBIAN_MIRROR
	expect_error "security without an entry or a /debian archive: an error naming the variable" \
		nosecpath security PREEMPT_DEBIAN_SECURITY_MIRROR
	expect_uri "PREEMPT_DEBIAN_MIRROR over the sources" \
		deb822 archive http://override.example/debian \
		PREEMPT_DEBIAN_MIRROR=http://override.example/debian/
	expect_uri "PREEMPT_DEBIAN_MIRROR with no apt source" \
		empty archive http://override.example/debian \
		PREEMPT_DEBIAN_MIRROR=http://override.example/debian
	expect_uri "PREEMPT_DEBIAN_MIRROR: the security archive beside it, not the sources'" \
		deb822 security http://override.example/debian-security \
		PREEMPT_DEBIAN_MIRROR=http://override.example/debian
	expect_uri "PREEMPT_DEBIAN_SECURITY_MIRROR over both" \
		deb822 security http://secover.example/ds \
		PREEMPT_DEBIAN_MIRROR=http://override.example/debian \
		PREEMPT_DEBIAN_SECURITY_MIRROR=http://secover.example/ds
}

# expect_proxy DESC NAME WANT [VAR=VALUE...]: apt_proxy_env on the fake
# apt configuration NAME exports exactly WANT (its http_proxy and
# https_proxy lines, sorted, joined by blanks).
expect_proxy() {
	ep_desc=$1 ep_name=$2 ep_want=$3
	shift 3
	# shellcheck disable=SC2016 # expanded by the fresh shell
	ep_got=$(env -u http_proxy -u https_proxy \
		APT_CONFIG="$etc/$ep_name/apt.conf" "$@" \
		sh -c '. tests/rig/lib.sh && apt_proxy_env && env' 2>&1 |
		grep -E '^(http|https)_proxy=' | sort | tr '\n' ' ')
	[ "${ep_got% }" = "$ep_want" ]
	result $? "$ep_desc: ${ep_want:-none}" "wanted \"$ep_want\", got \"${ep_got% }\""
}

proxies() {
	fake_apt proxy
	printf '%s\n' 'Acquire::http::Proxy "http://proxy.example:3128/";' \
		'Acquire::https::Proxy "http://tls-proxy.example:3128/";' \
		>>"$etc/proxy/apt.conf"
	fake_apt direct
	echo 'Acquire::http::Proxy "DIRECT";' >>"$etc/direct/apt.conf"
	expect_proxy "apt.conf's proxies exported for debootstrap" proxy \
		"http_proxy=http://proxy.example:3128/ https_proxy=http://tls-proxy.example:3128/"
	expect_proxy "the environment's proxy wins over apt.conf's" proxy \
		"http_proxy=http://env-proxy.example:8080/ https_proxy=http://tls-proxy.example:3128/" \
		http_proxy=http://env-proxy.example:8080/
	expect_proxy "no proxy in apt.conf, none exported" deb822 ""
	expect_proxy "DIRECT is no proxy" direct ""
}

# private_state_sources: private_sources keeps a private apt state's index
# while its lines stay the same and drops it when they change (another
# mirror), so the callers' freshness test fetches the new mirror's.
private_state_sources() {
	ps=$etc/state
	mkdir -p "$ps/lists"
	echo 'deb http://one.mirror.example/debian bookworm main' | private_sources "$ps"
	: >"$ps/lists/one.mirror.example_debian_dists_bookworm_main_binary-amd64_Packages"
	echo 'deb http://one.mirror.example/debian bookworm main' | private_sources "$ps"
	ps_same=$(ls "$ps/lists")
	echo 'deb http://two.mirror.example/debian bookworm main' | private_sources "$ps"
	ps_other=$(ls "$ps/lists")
	[ -n "$ps_same" ]
	result $? "private_sources: the same lines keep the index" "lists: $ps_same"
	[ -z "$ps_other" ] &&
		grep -qx 'deb http://two.mirror.example/debian bookworm main' "$ps/sources.list"
	result $? "private_sources: another mirror's lines replace the sources and drop the index" \
		"$(printf 'lists: %s\n' "$ps_other"; cat "$ps/sources.list")"
}

# archive_hosts: "FILE:LINE:HOST" for every host under Debian's domains in
# the tracked and new files, but its web site (www; debian/copyright's
# Format is a URL there, which lintian requires as it is).
archive_hosts() {
	git grep --untracked -I -n -o -E '[[:alnum:].-]+\.debian\.(org|net)' -- . |
		grep -v ':www\.[^:]*$'
}

tree_hosts() {
	if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		skip "no Debian archive host in the tree" "not a git work tree"
		return
	fi
	hosts=$(archive_hosts)
	[ -z "$hosts" ]
	result $? "no Debian archive host in the tree (git grep)" "$hosts"
}

suite_run() {
	mirror_parsing
	proxies
	private_state_sources
	tree_hosts
}

suite_main
