#!/usr/bin/env bash
# test.sh RESULTS FLAG...: everything "make test" runs, cheapest first, each stage counted,
# then one summary line "N passed, N failed" (", N skipped" when a test
# really skipped):
#   selftest  harness unit tests (fake QEMU, console, table)
#   check     shellcheck, mypy --strict; the series: checkpatch --strict,
#             sign-off, git am to pristine
#   matrix    vanilla and patched x slab, slub, slob: every patched row
#             (contract suite, upstream's tests) and every cell must pass
#   baseline  vanilla still fails exactly where baseline-vanilla.txt says
#   faults    fault injection on the real scripts (tests/faults_*.py): bad
#             input, a patch that does not apply, a dropped config option,
#             a build failure, SIGTERM mid-build and mid-boot, two runs at
#             once, broken KTAP
#   bisect    make bisect finds a planted bad patch (bisect-selftest.sh)
#   mutants   every plausible wrong fix in matrix/mutants/ is killed by
#             some contract case (zsp mutants)
# Runs go to RESULTS; FLAGs are the Makefile's for zsp, plus --fresh: no
# cell results reused from earlier runs (zsp/cache.py).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PASSED=0
FAILED=0
SKIPPED=0

# tally PASS FAIL STAGE [SKIP]
tally() {
	PASSED=$((PASSED + $1))
	FAILED=$((FAILED + $2))
	SKIPPED=$((SKIPPED + ${4:-0}))
	if [ "${4:-0}" -gt 0 ]; then
		log "$3: $1 passed, $2 failed, $4 skipped"
	else
		log "$3: $1 passed, $2 failed"
	fi
}

# tally_lines STAGE OUTPUT: count "ok"/"FAIL" lines of a checker's output.
tally_lines() {
	local p f
	printf '%s\n' "$2" >&2
	p=$(printf '%s\n' "$2" | grep -c '^ok ' || true)
	f=$(printf '%s\n' "$2" | grep -c '^FAIL' || true)
	[ "$p" -gt 0 ] || [ "$f" -gt 0 ] || f=1
	tally "$p" "$f" "$1"
}

# unittests STAGE PATTERN: run matrix/tests/PATTERN, count its verdicts.
unittests() {
	local out p f s
	out=$(cd "$ZSP_ROOT/matrix" && python3 -m unittest discover -s tests -t . -p "$2" -v 2>&1) || true
	printf '%s\n' "$out" | grep -E ' \.\.\. ' >&2 || true
	p=$(printf '%s\n' "$out" | grep -cE ' \.\.\. ok$' || true)
	f=$(printf '%s\n' "$out" | grep -cE ' \.\.\. (FAIL|ERROR)$' || true)
	s=$(printf '%s\n' "$out" | grep -cE ' \.\.\. skipped' || true)
	printf '%s\n' "$out" | grep -q '^OK' || f=$((f + 1))
	tally "$p" "$f" "$1" "$s"
}

stage_selftest() {
	unittests selftest 'test_*.py'
}

stage_check() {
	tally_lines check "$(zsp check "${ZSP_FLAGS[@]}" 2>&1 || true)"
}

stage_matrix() {
	local p f s
	RUN_DIR="$RESULTS/test-$(date +%Y%m%d-%H%M%S)-$$"
	zsp run "$RUN_DIR" "${ZSP_FLAGS[@]}" >&2 || true
	if [ ! -f "$RUN_DIR/results.json" ]; then
		tally 0 1 "matrix (no results.json in $RUN_DIR)"
		return
	fi
	read -r p f s < <(zsp table --count "$RUN_DIR")
	tally "$p" "$f" "matrix ($RUN_DIR)" "$s"
}

stage_baseline() {
	[ -f "$RUN_DIR/results.json" ] || return 0
	tally_lines baseline "$(zsp baseline "$RUN_DIR" || true)"
}

stage_faults() {
	# The fault tests work on the cache of this run.
	ZSP_TEST_CACHE=$ZSP_CACHE
	export ZSP_TEST_CACHE
	unittests faults 'faults_*.py'
}

stage_bisect() {
	tally_lines bisect "$("$ZSP_ROOT/matrix/bisect-selftest.sh" "$RESULTS" "${ZSP_FLAGS[@]}" || true)"
}

stage_mutants() {
	local dir
	dir="$RESULTS/mutants-$(date +%Y%m%d-%H%M%S)-$$"
	tally_lines mutants "$(zsp mutants "$dir" "${ZSP_FLAGS[@]}" || true)"
}

main() {
	RESULTS=$1
	shift
	settings "$@" --fresh
	stage_selftest
	stage_check
	stage_matrix
	stage_baseline
	stage_faults
	stage_bisect
	stage_mutants
	# Skips are counted only where a test really skipped (a self-test
	# whose tool is missing); a skip in the patched tree is a failure.
	if [ "$SKIPPED" -gt 0 ]; then
		echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	else
		echo "$PASSED passed, $FAILED failed"
	fi
	[ "$FAILED" -eq 0 ]
}

main "$@"
