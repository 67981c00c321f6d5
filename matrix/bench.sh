#!/usr/bin/env bash
# bench.sh OUT COLD GUEST_BOOTS BEFORE FLAG...: the measurements of "make bench",
# into OUT/bench.{json,txt}; COLD=1 adds the cold matrix, GUEST_BOOTS (the
# Makefile's) is the number of boots of the bench module per cell. BEFORE,
# a commit of this repository, measures the harness as of that commit side
# by side with this one (before_* numbers): the same reruns, interleaved,
# in a cache of its own (CACHE/bench-before) sharing the ccache.
#   pipeline  (COLD=1: a whole matrix in an empty scratch cache, no ccache);
#             a rerun of the matrix with nothing changed, as users get it
#             (unchanged cells reused) and with FRESH=1 (kbuild and every
#             boot); a rerun of the patched cells after an edit of one
#             allocator patch (SLUB's); stage by stage from the timings
#   bisect    make bisect CASE= over a planted bad SLUB patch, and the
#             same bisect booting the whole suite at each step (before)
#   peer      the suite built in and run by the tree's own kunit.py
#             (peer.sh), beside a FRESH=1 patched-slub cell
#   bloat     scripts/bloat-o-meter of vanilla vs patched vmlinux per
#             allocator: the series' text growth
#   guest     zero_size_bench.ko in every cell, under QEMU's instruction
#             count (exact) and TCG's wall clock (noisy): kmalloc(0)+kfree
#             against kmalloc(8)+kfree, kfree_bulk() of 1000 small and of
#             1000 mixed-size objects, kmem_cache_free(), kvfree_rcu(),
#             slab bytes held by 10^6 live zero-size allocations
# Every run's logs stay under OUT. FLAGs: the Makefile's for zsp.
set -euo pipefail
. "$(dirname "$0")/lib.sh"


# timed NAME CMD...: wall seconds of CMD into the record $PIPE (a JSON
# file, written by zsp internal bench record), its output into OUT/NAME.log.
timed() {
	local name=$1 t0
	shift
	t0=$EPOCHREALTIME
	"$@" >"$OUT/$name.log" 2>&1 || true
	zsp internal bench record "$PIPE" "$name" --since "$t0"
}

# stages NAME RUN: the per-stage seconds of RUN into the record.
stages() {
	zsp internal bench record "$PIPE" "$1" --stages "$2"
}

# matrix_run RUN [FLAG...]: a whole matrix, with the Makefile's flags
# (later flags override them).
matrix_run() {
	local run=$1
	shift
	zsp run "$run" "${ZSP_FLAGS[@]}" "$@"
}

# before_setup REV: the harness as of REV in OUT/before (git archive).
before_setup() {
	git -C "$ZSP_ROOT" rev-parse -q --verify "$1^{commit}" >/dev/null ||
		die "BEFORE='$1' is not a commit of $ZSP_ROOT"
	BEFORE=$OUT/before
	BEFORE_CACHE=$ZSP_CACHE/bench-before
	mkdir -p "$BEFORE" "$BEFORE_CACHE"
	git -C "$ZSP_ROOT" archive "$1" | tar -x -C "$BEFORE"
}

# before_run RUN [PATCHES [CACHE [CCACHE]]]: a whole matrix with the
# harness of BEFORE (its own entry point: matrix/run.sh, or zsp run where
# it exists), in its cache (default BEFORE_CACHE, with the shared ccache).
# Harnesses before the flags read ZSP_CACHE and ZSP_PATCHES.
before_run() {
	local patches=${2:-$ZSP_PATCHES} cache=${3:-$BEFORE_CACHE} ccache=${4:-$ZSP_CACHE/ccache}
	if [ -x "$BEFORE/matrix/run.sh" ]; then
		ZSP_CACHE=$cache CCACHE_DIR=$ccache ZSP_PATCHES=$patches \
			"$BEFORE/matrix/run.sh" "$1" "$ZSP_TREES" "$ZSP_ALLOCATORS"
	else
		ZSP_CACHE=$cache CCACHE_DIR=$ccache ZSP_PATCHES=$patches \
			PYTHONPATH="$BEFORE/matrix" python3 -m zsp run "$1" \
			--cache "$cache" --patches "$patches"
	fi
	# A harness that let git's auto gc inherit its lock: wait it out, so
	# that the next measurement is not refused.
	flock -w 1800 "$cache/locks/src-patched.lock" true 2>/dev/null || true
	flock -w 1800 "$cache/locks/src-vanilla.lock" true 2>/dev/null || true
}

# cold_matrix: a whole matrix from the tarball, in a scratch cache with
# an empty ccache; removed afterwards (some GB).
cold_matrix() {
	local cache=$OUT/cold-cache
	log "bench: cold matrix in $cache (about half an hour on 2 cores)"
	CCACHE_DIR=$cache/ccache timed cold_matrix_s matrix_run "$OUT/cold" --cache "$cache"
	stages cold_matrix_stages_s "$OUT/cold"
	rm -rf "$cache"
	[ -n "${BEFORE:-}" ] || return 0
	log "bench: BEFORE harness, cold matrix in $cache"
	timed before_cold_matrix_s before_run "$OUT/before-cold" "" "$cache" "$cache/ccache"
	stages before_cold_matrix_stages_s "$OUT/before-cold"
	rm -rf "$cache"
}

edit_slub_patch() {
	local dir=$1 p
	cp -r "$ZSP_PATCHES"/. "$dir/"
	p=$(grep -m1 '^slub/' "$dir/series")
	# Reword a comment the patch adds: slub.c changes, nothing else.
	sed -i 's|^+\t/\* Like kfree(): |+\t/* As kfree() does: |' "$dir/$p"
	grep -q 'As kfree() does' "$dir/$p" || die "bench: cannot edit $p"
}

# bisect_pair: make bisect CASE= over a planted bad SLUB patch, as users
# bisect (only that case boots), against the same bisect booting the
# whole suite at each step (as before CASE= booted one case). Both with
# --fresh: a step whose cell ran before (make test's bisect stage) must
# not be reused in one of them alone.
bisect_pair() {
	local tmp good case mode
	local -a extra
	tmp=$(mktemp -d)
	read -r good case < <(zsp internal bench plant "$tmp/series" "${ZSP_FLAGS[@]}")
	for mode in case boot_all; do
		extra=()
		[ "$mode" = case ] || extra=(--boot-all)
		log "bench: bisect slub CASE=$case from $good ($mode)"
		timed "bisect_${mode}_s" zsp bisect "$OUT/bisect-$mode" --alloc slub \
			--good "$good" --case "$case" "${extra[@]}" "${ZSP_FLAGS[@]}" \
			--patches "$tmp/series" --fresh
		zsp internal bench record "$PIPE" "bisect_${mode}_answer" \
			--value "$(tail -n 1 "$OUT/bisect_${mode}_s.log" | sed 's/; logs: .*//')"
	done
	rm -rf "$tmp"
}

main() {
	OUT=$1
	GUEST_BOOTS=${3:?usage: bench.sh OUT COLD GUEST_BOOTS BEFORE FLAG...}
	local cold=${2:-} before=${4:-} tree alloc tmp n
	shift 4
	settings "$@"
	mkdir -p "$OUT"
	PIPE=$OUT/pipeline.json
	zsp internal bench record "$PIPE" date --value "$(date -u +%Y-%m-%dT%H:%MZ)"
	zsp internal bench record "$PIPE" cores --value "$(nproc)"
	[ -z "$before" ] || before_setup "$before"
	[ -z "$cold" ] || cold_matrix
	log "bench: bring every cell up to date (not timed)"
	matrix_run "$OUT/prime" >"$OUT/prime.log" 2>&1 || true
	if [ -n "$before" ]; then
		zsp internal bench record "$PIPE" before --value "$(git -C "$ZSP_ROOT" rev-parse --short=12 "$before")"
		log "bench: bring every cell of the BEFORE harness up to date (not timed)"
		before_run "$OUT/before-prime" >"$OUT/before-prime.log" 2>&1 || true
		log "bench: BEFORE harness, rerun of the matrix, nothing changed"
		timed before_warm_rerun_s before_run "$OUT/before-warm"
		stages before_warm_rerun_stages_s "$OUT/before-warm"
	fi
	log "bench: rerun of the matrix, nothing changed"
	timed warm_rerun_s matrix_run "$OUT/warm"
	stages warm_rerun_stages_s "$OUT/warm"
	log "bench: rerun of the matrix, nothing changed, FRESH=1"
	timed warm_fresh_rerun_s matrix_run "$OUT/fresh" --fresh
	stages warm_fresh_rerun_stages_s "$OUT/fresh"
	log "bench: rerun of the patched cells after an edit of the SLUB patch"
	tmp=$(mktemp -d)
	edit_slub_patch "$tmp"
	if [ -n "$before" ]; then
		log "bench: BEFORE harness, rerun after the same edit"
		timed before_slub_patch_edit_rerun_s before_run "$OUT/before-edit" "$tmp"
		stages before_slub_patch_edit_stages_s "$OUT/before-edit"
	fi
	timed slub_patch_edit_rerun_s matrix_run "$OUT/edit" --trees patched --patches "$tmp"
	stages slub_patch_edit_stages_s "$OUT/edit"
	rm -rf "$tmp"
	bisect_pair
	zsp internal tree patched "${ZSP_FLAGS[@]}" >/dev/null
	log "bench: peer, kunit.py run --arch=x86_64 beside a FRESH=1 cell (slub)"
	"$ZSP_ROOT/matrix/peer.sh" slub "$OUT/peer" "${ZSP_FLAGS[@]}" || true
	PIPE=$OUT/peer/cell-time.json
	# The same suite alone, as kunit.py runs it: no upstream test modules.
	# kunit.py's figure is a rerun with nothing changed; so is ours: the
	# bisects above left slub's O= dir built at another commit.
	zsp internal cell --tree patched --alloc slub --out "$OUT/peer/cell-prime" \
		--modules zero_size_test "${ZSP_FLAGS[@]}" >"$OUT/peer/cell-prime.log" 2>&1 || true
	timed peer_cell_s zsp internal cell --tree patched --alloc slub --out "$OUT/peer/cell" \
		--modules zero_size_test "${ZSP_FLAGS[@]}" --fresh
	log "bench: text growth, scripts/bloat-o-meter vanilla vs patched vmlinux"
	for alloc in $ZSP_ALLOCATORS; do
		zsp internal bench bloat "$OUT" "$alloc" "${ZSP_FLAGS[@]}" || true
	done
	log "bench: zero_size_bench.ko, $GUEST_BOOTS boots per cell and clock, interleaved"
	for n in $(seq "$GUEST_BOOTS"); do
		for clock in icount wall; do
			for alloc in $ZSP_ALLOCATORS; do
				for tree in $ZSP_TREES; do
					zsp internal bench guest "$OUT" "$tree" "$alloc" "$n" --clock "$clock" \
						"${ZSP_FLAGS[@]}" || true
				done
			done
		done
	done
	zsp internal bench report "$OUT"
}

main "$@"
