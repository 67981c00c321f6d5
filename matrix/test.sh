#!/usr/bin/env bash
# test.sh: everything "make test" runs, in order of cost, each stage
# counted, then one summary line "N passed, N failed":
#   selftest  harness unit tests (python unittest) and shellcheck
#   check     the series: checkpatch --strict, sign-off, git am to pristine
#   matrix    vanilla and patched x slab, slub, slob: the contract suite and
#             upstream's tests (see table.py for what counts as failing)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PASSED=0
FAILED=0

# tally PASS FAIL STAGE
tally() {
	PASSED=$((PASSED + $1))
	FAILED=$((FAILED + $2))
	log "$3: $1 passed, $2 failed"
}

stage_selftest() {
	local out p f
	out=$(cd "$ZSP_ROOT/matrix" && python3 -m unittest discover -s tests -t . -v 2>&1) || true
	printf '%s\n' "$out" | grep -E ' \.\.\. ' >&2 || true
	p=$(printf '%s\n' "$out" | grep -cE ' \.\.\. ok$' || true)
	f=$(printf '%s\n' "$out" | grep -cE ' \.\.\. (FAIL|ERROR)$' || true)
	if printf '%s\n' "$out" | grep -qE '^(Ran 0 tests|.*Error)'; then
		f=$((f + 1))
	fi
	tally "$p" "$f" "selftest"
	if shellcheck "$ZSP_ROOT"/matrix/*.sh "$ZSP_ROOT"/matrix/guest-init "$ZSP_ROOT"/.ci/run >&2; then
		tally 1 0 "shellcheck"
	else
		tally 0 1 "shellcheck"
	fi
}

stage_check() {
	local out p f
	out=$("$ZSP_ROOT/matrix/check.sh" 2>&1) || true
	printf '%s\n' "$out" >&2
	p=$(printf '%s\n' "$out" | grep -c '^ok ' || true)
	f=$(printf '%s\n' "$out" | grep -c '^FAIL' || true)
	tally "$p" "$f" "check"
}

stage_matrix() {
	local run rc=0 p f
	run="$ZSP_ROOT/results/test-$(date +%Y%m%d-%H%M%S)-$$"
	"$ZSP_ROOT/matrix/run.sh" "$run" "$ZSP_TREES" "$ZSP_ALLOCATORS" >&2 || rc=$?
	if [ ! -f "$run/results.json" ]; then
		tally 0 1 "matrix (no results.json, run.sh exit $rc)"
		return
	fi
	f=$(python3 "$ZSP_ROOT/matrix/table.py" --count-failing "$run")
	p=$(python3 "$ZSP_ROOT/matrix/table.py" --count-passing "$run")
	tally "$p" "$f" "matrix ($run)"
}

main() {
	stage_selftest
	stage_check
	stage_matrix
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

main "$@"
