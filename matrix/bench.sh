#!/usr/bin/env bash
# bench.sh OUT COLD GUEST_BOOTS: the measurements of "make bench", into
# OUT/bench.{json,txt}; COLD=1 adds the cold matrix, GUEST_BOOTS (the
# Makefile's) is the number of boots of the bench module per cell.
#   pipeline  (COLD=1: a whole matrix in an empty scratch cache, no ccache);
#             a rerun of the matrix with nothing changed, as users get it
#             (unchanged cells reused) and with FRESH=1 (kbuild and every
#             boot); a rerun of the patched cells after an edit of one
#             allocator patch (SLUB's); stage by stage from the timings
#   peer      the suite built in and run by the tree's own kunit.py
#             (peer.sh), beside a FRESH=1 patched-slub cell
#   guest     zero_size_bench.ko in every cell: kmalloc(0)+kfree against
#             kmalloc(8)+kfree, kfree_bulk() of 1000 objects, slab bytes
#             held by 10^6 live zero-size allocations
# Every run's logs stay under OUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"


# timed NAME CMD...: wall seconds of CMD into the pipeline record, its
# output into OUT/NAME.log.
timed() {
	local name=$1 t0
	shift
	t0=$(date +%s.%N)
	"$@" >"$OUT/$name.log" 2>&1 || true
	PIPE="$PIPE, \"$name\": $(echo "$(date +%s.%N) - $t0" | bc)"
}

# stages NAME RUN: the per-stage seconds of RUN into the pipeline record.
stages() {
	PIPE="$PIPE, \"$1\": $(zsp bench stages "$2")"
}

matrix_run() {
	zsp run "$1"
}

# cold_matrix: a whole matrix from the tarball, in a scratch cache with
# an empty ccache; removed afterwards (some GB).
cold_matrix() {
	local cache=$OUT/cold-cache
	log "bench: cold matrix in $cache (about half an hour on 2 cores)"
	ZSP_CACHE=$cache CCACHE_DIR=$cache/ccache timed cold_matrix_s matrix_run "$OUT/cold"
	stages cold_matrix_stages_s "$OUT/cold"
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

main() {
	OUT=$1
	GUEST_BOOTS=${3:?usage: bench.sh OUT COLD GUEST_BOOTS}
	local cold=${2:-} tree alloc tmp n
	mkdir -p "$OUT"
	PIPE="\"date\": \"$(date -u +%Y-%m-%dT%H:%MZ)\", \"cores\": $(nproc)"
	[ -z "$cold" ] || cold_matrix
	log "bench: bring every cell up to date (not timed)"
	matrix_run "$OUT/prime" >"$OUT/prime.log" 2>&1 || true
	log "bench: rerun of the matrix, nothing changed"
	timed warm_rerun_s matrix_run "$OUT/warm"
	stages warm_rerun_stages_s "$OUT/warm"
	log "bench: rerun of the matrix, nothing changed, FRESH=1"
	ZSP_FRESH=1 timed warm_fresh_rerun_s matrix_run "$OUT/fresh"
	stages warm_fresh_rerun_stages_s "$OUT/fresh"
	log "bench: rerun of the patched cells after an edit of the SLUB patch"
	tmp=$(mktemp -d)
	edit_slub_patch "$tmp"
	timed slub_patch_edit_rerun_s zsp run "$OUT/edit" --trees patched --patches "$tmp"
	stages slub_patch_edit_stages_s "$OUT/edit"
	rm -rf "$tmp"
	with_locks src-patched -- env PYTHONPATH="$ZSP_ROOT/matrix" python3 -m zsp tree patched >/dev/null
	echo "{$PIPE}" >"$OUT/pipeline.json"
	log "bench: peer, kunit.py run --arch=x86_64 beside a FRESH=1 cell (slub)"
	"$ZSP_ROOT/matrix/peer.sh" slub "$OUT/peer" || true
	PIPE=""
	# The same suite alone, as kunit.py runs it: no upstream test modules.
	timed peer_cell_s zsp cell --fresh --tree patched --alloc slub --out "$OUT/peer/cell" \
		--modules zero_size_test
	echo "{${PIPE#, }}" >"$OUT/peer/cell.json"
	log "bench: zero_size_bench.ko, $GUEST_BOOTS boots per cell, interleaved"
	for n in $(seq "$GUEST_BOOTS"); do
		for alloc in $ZSP_ALLOCATORS; do
			for tree in $ZSP_TREES; do
				zsp bench guest "$OUT" "$tree" "$alloc" "$n" || true
			done
		done
	done
	zsp bench report "$OUT"
}

main "$@"
