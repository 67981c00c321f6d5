#!/usr/bin/env bash
# deps.sh [PACKAGE...]: make sure the Debian packages the pipeline needs
# (and any PACKAGE given) are installed. As root, install what is
# missing; otherwise print the exact command.
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
# chromium (with a font) renders the run's index.html in them.
PACKAGES="$(zsp internal axes packages) qemu-system-x86 gcc make busybox-static jq
bison flex libelf-dev libssl-dev cpio ccache python3 xz-utils perl git
util-linux shellcheck mypy python3-jsonschema python3-yaml chromium fonts-liberation $*"

missing_packages() {
	local p
	for p in $PACKAGES; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			printf '%s ' "$p"
	done
}

main() {
	local missing
	command -v dpkg-query >/dev/null || die "dpkg-query not found: this needs Debian 12 (or a derivative)"
	missing=$(missing_packages)
	[ -z "$missing" ] && return 0
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
