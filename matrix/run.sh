#!/usr/bin/env bash
# run.sh RUN_DIR "TREES" "ALLOCATORS": every cell (cell.sh), then the table.
# A cell that fails to build or boot is reported as that cell's error; the
# other cells still run. Every log stays in RUN_DIR/<tree>-<alloc>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local run=$1 trees=$2 allocs=$3 tree alloc err
	mkdir -p "$run"
	for tree in $trees; do
		check_tree "$tree"
	done
	for alloc in $allocs; do
		check_alloc "$alloc"
	done
	for tree in $trees; do
		hold_lock "src-$tree"
		if ! err=$("$ZSP_ROOT/matrix/tree.sh" "$tree" 2>&1 >/dev/null); then
			err=$(printf '%s\n' "$err" | grep -m1 '^error:' || printf '%s\n' "$err" | tail -1)
			printf '%s\n' "$err" >&2
			for alloc in $allocs; do
				mkdir -p "$run/$tree-$alloc"
				printf '%s\n' "${err#error: }" >"$run/$tree-$alloc/error"
			done
		else
			for alloc in $allocs; do
				"$ZSP_ROOT/matrix/cell.sh" "$tree" "$alloc" "$run/$tree-$alloc" || true
			done
		fi
		exec {ZSP_LOCK_FD}>&-
	done
	python3 "$ZSP_ROOT/matrix/table.py" "$run"
}

main "$@"
