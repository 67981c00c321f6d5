#!/usr/bin/env bash
# bisect-selftest.sh RESULTS FLAG...: "make bisect" finds a planted bad
# patch. A copy of the series gets tests/data/bad-slub-bulk-free.patch
# right after the SLUB fix: it breaks kfree_bulk() of sentinels on SLUB
# only. Bisecting SLUB from the SLUB fix (good) to the tip must name
# exactly that patch; bisecting SLAB over the same range must report that
# nothing in it is bad. FLAGs: the Makefile's for zsp. Prints "ok"/"FAIL"
# lines, one per check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BAD_NAME=0004a-bad-slub-bulk-free.patch

plant_bad_patch() {
	local dir=$1 slub_fix
	cp -r "$ZSP_PATCHES"/. "$dir/"
	cp "$ZSP_ROOT/matrix/tests/data/bad-slub-bulk-free.patch" "$dir/slub/$BAD_NAME"
	slub_fix=$(grep -m1 '^slub/' "$ZSP_PATCHES/series")
	sed -i "\\|^$slub_fix\$|a slub/$BAD_NAME" "$dir/series"
	printf '%s\n' "$slub_fix"
}

# expect NAME PATTERN CMD...: run CMD, check its stdout for PATTERN.
expect() {
	local name=$1 pattern=$2 out
	shift 2
	# Shown live on stderr and kept in a file: "tee /dev/stderr" would open
	# stderr anew and truncate or overwrite the log file it may be (CI).
	"$@" 2>&1 | tee "$tmp/expect.out" >&2 || true
	out=$(cat "$tmp/expect.out")
	if printf '%s\n' "$out" | grep -q -- "$pattern"; then
		echo "ok   $name"
	else
		echo "FAIL $name: no '$pattern' in: $(printf '%s\n' "$out" | tail -1)"
	fi
}

main() {
	local results=$1 good
	shift
	settings "$@"
	# Global: the EXIT trap needs it after main returns.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	good=$(plant_bad_patch "$tmp")
	# What "make bisect ALLOC=... GOOD=... PATCHES=..." runs.
	ZSP_FLAGS+=(--patches "$tmp")
	expect "bisect slub names the planted patch" \
		"first bad patch on slub: slub/$BAD_NAME" \
		zsp bisect "$results/bisect-selftest-slub-$$" --alloc slub --good "$good" "${ZSP_FLAGS[@]}"
	expect "bisect slab finds nothing bad" \
		"nothing in .* is bad on slab" \
		zsp bisect "$results/bisect-selftest-slab-$$" --alloc slab --good "$good" "${ZSP_FLAGS[@]}"
}

main "$@"
