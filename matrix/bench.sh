#!/usr/bin/env bash
# bench.sh OUT: the measurements of "make bench", into OUT/bench.{json,txt}.
#   pipeline  a rerun of the whole matrix with nothing changed (stage by
#             stage, from each cell's timings), then a rerun of the patched
#             cells after an edit of one allocator patch (SLUB's)
#   guest     zero_size_bench.ko in every cell: kmalloc(0)+kfree against
#             kmalloc(8)+kfree, kfree_bulk() of 1000 objects, slab bytes
#             held by 10^6 live zero-size allocations
# The cold matrix time is that of a first "make matrix" on an empty cache
# (ZSP_COLD_S, if measured; see README), not re-measured here: it costs
# half an hour of both cores.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# timed NAME CMD...: wall seconds of CMD into the pipeline record.
timed() {
	local name=$1 t0
	shift
	t0=$(date +%s.%N)
	"$@" >/dev/null || true
	PIPE="$PIPE, \"$name\": $(echo "$(date +%s.%N) - $t0" | bc)"
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
	local out=$1 tmp tree alloc stages
	mkdir -p "$out"
	PIPE="\"cold_matrix_s\": ${ZSP_COLD_S:-null}"
	log "bench: warm rerun of the matrix, nothing changed"
	"$ZSP_ROOT/matrix/run.sh" "$out/warm-prime" "$ZSP_TREES" "$ZSP_ALLOCATORS" >/dev/null 2>&1 || true
	timed warm_rerun_s "$ZSP_ROOT/matrix/run.sh" "$out/warm" "$ZSP_TREES" "$ZSP_ALLOCATORS"
	stages=$(python3 "$ZSP_ROOT/matrix/bench.py" stages "$out/warm")
	PIPE="$PIPE, \"warm_rerun_stages_s\": $stages"
	log "bench: rerun after an edit of the SLUB patch"
	tmp=$(mktemp -d)
	edit_slub_patch "$tmp"
	ZSP_PATCHES=$tmp timed slub_patch_edit_rerun_s "$ZSP_ROOT/matrix/run.sh" "$out/edit" patched "$ZSP_ALLOCATORS"
	stages=$(python3 "$ZSP_ROOT/matrix/bench.py" stages "$out/edit")
	PIPE="$PIPE, \"slub_patch_edit_stages_s\": $stages"
	rm -rf "$tmp"
	hold_lock src-patched
	"$ZSP_ROOT/matrix/tree.sh" patched >/dev/null
	exec {ZSP_LOCK_FD}>&-
	echo "{$PIPE}" >"$out/pipeline.json"
	for tree in $ZSP_TREES; do
		for alloc in $ZSP_ALLOCATORS; do
			log "bench: guest $tree-$alloc"
			python3 "$ZSP_ROOT/matrix/bench.py" guest "$out" "$tree" "$alloc" "$(obj_dir "$tree" "$alloc")" || true
		done
	done
	python3 "$ZSP_ROOT/matrix/bench.py" report "$out"
}

main "$@"
