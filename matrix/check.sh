#!/usr/bin/env bash
# check.sh: the harness is clean and the series is fit to send. The shell
# passes shellcheck and the zsp package mypy --strict; every patch of
# patches/series has a subject with a subsystem prefix and a
# Signed-off-by, passes the tree's checkpatch.pl --strict without errors
# or warnings, and the series applies with git am to the pristine tree
# ("zsp tree patched" does that, and caches the result by the series'
# content). Prints one line per check and a summary; exits 1 on any
# failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

check_patch() {
	local patch=$1 src=$2 name out
	name=${patch#"$ZSP_PATCHES"/}
	if ! grep -qE '^Subject: \[PATCH[^]]*\] [a-z0-9/_.-]+: ' "$patch"; then
		echo "FAIL $name: subject lacks a 'subsystem: ' prefix"
		return 1
	fi
	if ! grep -q '^Signed-off-by: ' "$patch"; then
		echo "FAIL $name: no Signed-off-by"
		return 1
	fi
	if ! out=$("$src/scripts/checkpatch.pl" --strict --no-tree -q "$patch" 2>&1) || [ -n "$out" ]; then
		echo "FAIL $name: checkpatch --strict: $(printf '%s\n' "$out" | grep -m1 -E '^(ERROR|WARNING|CHECK)' || true)"
		return 1
	fi
	echo "ok   $name"
}

# lint NAME CMD...: one "ok"/"FAIL" line for a linter run over the harness.
lint() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok   $name"
	else
		echo "FAIL $name: $(printf '%s\n' "$out" | grep -m1 -E 'error|SC[0-9]+' || printf '%s\n' "$out" | tail -1)"
		printf '%s\n' "$out" >&2
		return 1
	fi
}

main() {
	local src patch pass=0 fail=0 err
	relock src-patched -- "$0" "$@"
	if lint shellcheck shellcheck "$ZSP_ROOT"/matrix/*.sh "$ZSP_ROOT"/matrix/guest-init "$ZSP_ROOT"/.ci/run; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
	if lint 'mypy --strict matrix/zsp' mypy --strict --cache-dir "$ZSP_CACHE/mypy" "$ZSP_ROOT/matrix/zsp"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
	src=$(zsp tree vanilla)
	if err=$(zsp tree patched 2>&1 >/dev/null); then
		echo "ok   series applies with git am to pristine $(make -s -C "$src" kernelversion)"
		pass=$((pass + 1))
	else
		echo "FAIL series: $(printf '%s\n' "$err" | grep -m1 '^error:' || printf '%s\n' "$err" | tail -1)"
		fail=$((fail + 1))
	fi
	while read -r patch; do
		if check_patch "$patch" "$src"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	done < <(zsp series --paths)
	echo "check: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

main "$@"
