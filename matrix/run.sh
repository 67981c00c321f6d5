#!/usr/bin/env bash
# run.sh RUN_DIR "TREES" "ALLOCATORS": every cell (cell.sh), then the table.
# A cell that fails to build or boot is reported as that cell's error; the
# other cells still run. Every log stays in RUN_DIR/<tree>-<alloc>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# A cell boots in the background while the next one builds: a TCG guest
# keeps about one core busy, kbuild both, and beside a build the verdicts
# stay the same (vanilla-slub measured: 70 s of boots instead of 59 s).
# One guest at a time: two would compete for the same vCPU time.
BOOT_PID=""

wait_boot() {
	[ -z "$BOOT_PID" ] || wait "$BOOT_PID" || true
	BOOT_PID=""
}

# stop_boot: on the way out, the background boot goes too; zsp boot-cell kills
# its QEMU on SIGTERM.
stop_boot() {
	[ -n "$BOOT_PID" ] || return 0
	pkill -TERM -P "$BOOT_PID" 2>/dev/null || true
	kill "$BOOT_PID" 2>/dev/null || true
	wait "$BOOT_PID" 2>/dev/null || true
}

run_cell() {
	local tree=$1 alloc=$2 dir=$3
	ZSP_CELL_STAGE=prepare "$ZSP_ROOT/matrix/cell.sh" "$tree" "$alloc" "$dir" || return 0
	wait_boot
	ZSP_CELL_STAGE=boot "$ZSP_ROOT/matrix/cell.sh" "$tree" "$alloc" "$dir" &
	BOOT_PID=$!
}

main() {
	local run=$1 trees=${2:-$ZSP_TREES} allocs=${3:-$ZSP_ALLOCATORS} tree alloc err locks
	mkdir -p "$run"
	# Signals reach the background boot through the process group (Ctrl-C,
	# make, kill -- -PGID); this covers the other ways out.
	trap stop_boot EXIT
	for tree in $trees; do
		check_tree "$tree"
	done
	for alloc in $allocs; do
		check_alloc "$alloc"
	done
	locks=()
	for tree in $trees; do
		locks+=("src-$tree")
	done
	relock "${locks[@]}" -- "$0" "$@"
	for tree in $trees; do
		if ! err=$(ZSP_TIMINGS="$run/tree-$tree.timings" "$ZSP_ROOT/matrix/tree.sh" "$tree" 2>&1 >/dev/null); then
			err=$(printf '%s\n' "$err" | grep -m1 '^error:' || printf '%s\n' "$err" | tail -1)
			printf '%s\n' "$err" >&2
			for alloc in $allocs; do
				mkdir -p "$run/$tree-$alloc"
				printf '%s\n' "${err#error: }" >"$run/$tree-$alloc/error"
			done
		else
			for alloc in $allocs; do
				run_cell "$tree" "$alloc" "$run/$tree-$alloc"
			done
		fi
	done
	wait_boot
	zsp table "$run"
}

main "$@"
