#!/usr/bin/env bash
# deps.sh [PACKAGE...]: make sure the Debian packages the pipeline needs
# (and any PACKAGE given) are installed. As root, install what is
# missing; otherwise print the exact command. Then fetch the kernel
# sources of other Debian suites into the cache (ZSP_CACHE; default:
# zsp's), as any user.
set -euo pipefail

# The harness (lib.sh included) is Python: that one comes first.
if ! command -v python3 >/dev/null; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: python3 is missing; run: sudo apt-get install -y python3" >&2
		exit 1
	fi
	apt-get update >/dev/null 2>&1 || true
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 >/dev/null
fi
. "$(dirname "$0")/lib.sh"

# python3-jsonschema validates make export's kcidb JSON in the self-tests,
# python3-yaml reads the CI definitions in them;
# chromium (with a font) renders the run's index.html in them;
# git-email (with libmailtools-perl, which it needs) for make send and
# make check's dry run of each series; python3-matplotlib draws make
# bench's plots.
PACKAGES="$(zsp internal axes packages) qemu-system-x86 gcc make busybox-static jq
bison flex libelf-dev libssl-dev cpio ccache python3 xz-utils perl git
util-linux shellcheck mypy python3-jsonschema python3-yaml chromium fonts-liberation
git-email libmailtools-perl python3-matplotlib $*"

missing_packages() {
	local p
	for p in $PACKAGES; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			printf '%s ' "$p"
	done
}

# fetch_suites: the source and config of each kernel whose Debian suite
# the machine's apt sources do not name (axes.Kernel.suite), downloaded
# into the cache by fetch-backports.sh unless they are there already.
fetch_suites() {
	local k suite tarball config packages
	: "${ZSP_CACHE:=$(zsp internal axes cache)}"
	for k in $(zsp internal axes kernels); do
		suite=$(zsp internal axes suite --kernel "$k")
		[ -n "$suite" ] || continue
		tarball=$(zsp internal axes tarball --kernel "$k" --cache "$ZSP_CACHE")
		config=$(zsp internal axes debian-config --kernel "$k" --cache "$ZSP_CACHE")
		[ -r "$tarball" ] && [ -r "$config" ] && continue
		packages=$(zsp internal axes fetched --kernel "$k")
		log "fetching $packages from $suite into $ZSP_CACHE"
		# shellcheck disable=SC2086
		ZSP_CACHE=$ZSP_CACHE ZSP_SUITE=$suite "$(dirname "$0")/fetch-backports.sh" \
			$packages >/dev/null
	done
}

main() {
	local missing
	command -v dpkg-query >/dev/null || die "dpkg-query not found: this needs Debian 12 (or a derivative)"
	missing=$(missing_packages)
	if [ -n "$missing" ]; then
		install_packages "$missing"
	fi
	fetch_suites
}

# install_packages LIST: as root, apt-get install LIST; otherwise the line.
install_packages() {
	local missing=$1
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages; run: sudo apt-get install -y ${missing% }"
	fi
	log "installing: $missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
		apt-get update >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		apt-get install -y --no-install-recommends $missing >/dev/null ||
			die "apt-get install failed for: $missing"
	fi
}

main "$@"
