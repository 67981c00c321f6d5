#!/usr/bin/env bash
# fetch-backports.sh PACKAGE...: download Debian packages of the
# trixie-backports suite (linux-source-7.3, linux-config-7.3) into a
# cache, without touching the machine's apt configuration, and unpack
# each with dpkg-deb -x into $ZSP_CACHE/debs/PACKAGE/.
#
# It is for the kernels whose source Debian ships only in a suite the
# machine's bookworm sources do not name (axes.Kernel.suite: 7.3 in
# trixie-backports); deps.sh (make deps) calls it.
#
# A private apt configuration lives in $ZSP_CACHE/apt: its own deb822
# source list, lists and archives directories. The archive URI and its
# Signed-By keyring are read at run time from the machine's own
# debian.sources (the first stanza naming a bookworm suite); no host is
# written here. Run as any user that can write the cache.
#
# Environment: ZSP_CACHE and ZSP_SUITE (both required), ZSP_APT_SOURCES
# (default: /etc/apt/sources.list.d/debian.sources).
set -euo pipefail

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

[ -n "${ZSP_CACHE:-}" ] || die "ZSP_CACHE is not set; run this through make deps"
[ -n "${ZSP_SUITE:-}" ] || die "ZSP_SUITE is not set; run this through make deps"
ZSP_APT_SOURCES=${ZSP_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}

# archive_field FIELD: FIELD's value in the first stanza of the machine's
# deb822 sources whose Suites are the plain distribution (not -security).
archive_field() {
	awk -v want="$1" '
		/^[[:space:]]*$/ { if (ok && val != "") { print val; exit } ok = 0; val = ""; next }
		/^#/ { next }
		{
			key = $1; sub(/:$/, "", key)
			if (key == "URIs" && $2 !~ /-security/) ok = 1
			if (key == want) { val = $2 }
		}
		END { if (ok && val != "") print val }
	' "$ZSP_APT_SOURCES" | head -n 1
}

# write_sources: the private source list, from the machine's archive.
write_sources() {
	local uri keyring
	[ -r "$ZSP_APT_SOURCES" ] || die "cannot read $ZSP_APT_SOURCES to find the Debian archive for $*"
	uri=$(archive_field URIs)
	keyring=$(archive_field Signed-By)
	[ -n "$uri" ] || die "no Debian archive URI in $ZSP_APT_SOURCES for $*"
	[ -n "$keyring" ] || die "no Signed-By keyring in $ZSP_APT_SOURCES for $*"
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial"
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$uri" "$ZSP_SUITE" "$keyring" >"$APT_DIR/sources.sources"
}

apt_private() {
	apt-get -q \
		-o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::sourcelist="$APT_DIR/sources.sources" \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::Cache="$APT_DIR" \
		-o Dir::Cache::archives="$APT_DIR/archives" \
		-o Debug::NoLocking=1 \
		"$@"
}

# fetch PACKAGE: its .deb into the archives dir, unpacked beside it.
fetch() {
	local pkg=$1 deb
	deb=$(find "$APT_DIR/archives" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
	if [ -z "$deb" ]; then
		(cd "$APT_DIR/archives" && apt_private download "$pkg" >/dev/null 2>"$APT_DIR/download.err") ||
			die "$pkg: not downloadable from $ZSP_SUITE ($(tail -n 1 "$APT_DIR/download.err"))"
		deb=$(find "$APT_DIR/archives" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
		[ -n "$deb" ] || die "$pkg: apt-get download left no .deb in $APT_DIR/archives"
	fi
	rm -rf "$ZSP_CACHE/debs/$pkg"
	mkdir -p "$ZSP_CACHE/debs/$pkg"
	dpkg-deb -x "$deb" "$ZSP_CACHE/debs/$pkg" || die "$pkg: dpkg-deb -x failed on $deb"
	printf '%s\n' "$ZSP_CACHE/debs/$pkg"
}

main() {
	[ $# -gt 0 ] || die "usage: $0 PACKAGE..."
	mkdir -p "$ZSP_CACHE"
	ZSP_CACHE=$(cd "$ZSP_CACHE" && pwd)
	APT_DIR=$ZSP_CACHE/apt
	write_sources "$@"
	# apt-get update exits 0 when an index fails to download (a warning):
	# the suite's Packages index in the private lists is what counts.
	if ! apt_private update >/dev/null 2>"$APT_DIR/update.err" ||
		grep -q -E '^(E: |W: Failed to fetch)' "$APT_DIR/update.err" ||
		! find "$APT_DIR/lists" -maxdepth 1 -name "*_dists_${ZSP_SUITE}_*Packages*" | grep -q .; then
		die "$*: the $ZSP_SUITE archive is unreachable ($(grep -m1 -E '^(E|W):' "$APT_DIR/update.err" || echo 'no Packages index'))"
	fi
	local pkg
	for pkg in "$@"; do
		fetch "$pkg"
	done
}

main "$@"
