#!/usr/bin/env bash
# run.sh RUN_DIR "TREES" "ALLOCATORS": the whole pipeline for every cell:
# tree -> config -> kernel -> module -> initramfs -> boots -> table.
# A cell that fails to build or boot is reported as that cell's error; the
# other cells still run. Every log stays in RUN_DIR/<tree>-<alloc>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MATRIX=$ZSP_ROOT/matrix

# phase CELL NAME CMD...: run one step of a cell with a progress line;
# on failure record the step's one-line error as the cell's result.
phase() {
	local dir=$1 name=$2 t0=$SECONDS err
	shift 2
	log "$(basename "$dir"): $name"
	if ! err=$("$@" 2>&1 >/dev/null); then
		err=$(printf '%s\n' "$err" | grep -m1 '^error:' || printf '%s\n' "$err" | tail -1)
		printf '%s\n' "${err#error: }" >"$dir/error"
		log "$(basename "$dir"): $name FAILED: ${err#error: }"
		return 1
	fi
	[ $((SECONDS - t0)) -gt 1 ] && log "$(basename "$dir"): $name done in $((SECONDS - t0))s"
	return 0
}

upstream_modules() {
	local obj=$1 m list=""
	for m in test_meminit slub_kunit; do
		[ -f "$obj/lib/$m.ko" ] && list="$list $m"
	done
	printf '%s zero_size_test\n' "$list"
}

run_cell() {
	local run=$1 tree=$2 alloc=$3 dir src obj
	dir="$run/$tree-$alloc"
	mkdir -p "$dir"
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	hold_lock "o-$tree-$alloc"
	phase "$dir" config "$MATRIX/config.sh" "$tree" "$alloc" || return 0
	phase "$dir" kernel "$MATRIX/build.sh" "$tree" "$alloc" "$dir/build.log" || return 0
	phase "$dir" module "$MATRIX/module.sh" "$tree" "$alloc" "$dir/module.log" || return 0
	phase "$dir" initramfs "$MATRIX/initramfs.sh" "$tree" "$alloc" "$obj/zsp-initramfs.cpio" || return 0
	cp "$obj/.config" "$dir/config"
	log "$tree-$alloc: boot"
	if ! python3 "$MATRIX/cell.py" --tree "$tree" --alloc "$alloc" \
		--kernel "$obj/arch/x86/boot/bzImage" \
		--initrd "$obj/zsp-initramfs.cpio" \
		--gen-init-cpio "$obj/usr/gen_init_cpio" \
		--kunit-tool "$src/tools/testing/kunit/kunit.py" \
		--modules "$(upstream_modules "$obj")" \
		--timeout "${ZSP_TIMEOUT:-300}" --silence "${ZSP_SILENCE:-30}" \
		--out "$dir"; then
		echo "harness error in cell.py; see $dir" >"$dir/error"
	fi
	exec {ZSP_LOCK_FD}>&-
}

main() {
	local run=$1 trees=$2 allocs=$3 tree alloc
	mkdir -p "$run"
	for tree in $trees; do
		check_tree "$tree"
	done
	for alloc in $allocs; do
		check_alloc "$alloc"
	done
	for tree in $trees; do
		if ! "$MATRIX/tree.sh" "$tree" >/dev/null 2>"$run/tree-$tree.err"; then
			cat "$run/tree-$tree.err" >&2
			for alloc in $allocs; do
				mkdir -p "$run/$tree-$alloc"
				sed -n 's/^error: //p' "$run/tree-$tree.err" >"$run/$tree-$alloc/error"
			done
			continue
		fi
		rm -f "$run/tree-$tree.err"
		for alloc in $allocs; do
			run_cell "$run" "$tree" "$alloc"
		done
	done
	python3 "$MATRIX/table.py" "$run"
}

main "$@"
