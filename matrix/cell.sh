#!/usr/bin/env bash
# cell.sh TREE ALLOC DIR [MODULES]: one cell of the matrix on the tree as it
# is checked out: config -> kernel -> module -> initramfs -> boots. Logs
# and cell.json go to DIR. When a step fails, its one-line error is written
# to DIR/error and printed, and the exit status is 125 ("cannot test", as
# git bisect run wants it). MODULES defaults to upstream's test modules
# this config built, then zero_size_test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MATRIX=$ZSP_ROOT/matrix

# phase NAME CMD...: one step, with a progress line; its time goes to
# DIR/timings ("name seconds") for make bench.
phase() {
	local name=$1 t0 err rc
	shift
	t0=$(date +%s.%N)
	log "$CELL: $name"
	# Progress shows live; the step's own error line is kept for the one below.
	set +e
	"$@" 2>&1 >/dev/null | tee "$DIR/.stderr" | { grep --line-buffered -v '^error:' >&2; true; }
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" -ne 0 ]; then
		err=$(grep -m1 '^error:' "$DIR/.stderr" || tail -1 "$DIR/.stderr")
		printf '%s\n' "${err#error: }" >"$DIR/error"
		log "$CELL: $name FAILED: ${err#error: }"
		exit 125
	fi
	rm -f "$DIR/.stderr"
	printf '%s %.2f\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)" >>"$DIR/timings"
}

default_modules() {
	local obj=$1 m list=""
	for m in test_meminit slub_kunit; do
		[ -f "$obj/lib/$m.ko" ] && list="$list $m"
	done
	printf '%s zero_size_test\n' "$list"
}

prepare() {
	local tree=$1 alloc=$2 obj=$3
	rm -f "$DIR/error" "$DIR/timings"
	phase config "$MATRIX/config.sh" "$tree" "$alloc"
	phase kernel "$MATRIX/build.sh" "$tree" "$alloc" "$DIR/build.log"
	phase module "$MATRIX/module.sh" "$tree" "$alloc" "$DIR/module.log"
	phase initramfs "$MATRIX/initramfs.sh" "$tree" "$alloc" "$obj/zsp-initramfs.cpio"
	cp "$obj/.config" "$DIR/config"
}

boot_cell() {
	local tree=$1 alloc=$2 obj=$3 modules=$4 src
	src=$(src_dir "$tree")
	[ -n "$modules" ] || modules=$(default_modules "$obj")
	phase boot zsp boot-cell --tree "$tree" --alloc "$alloc" \
		--kernel "$obj/arch/x86/boot/bzImage" \
		--initrd "$obj/zsp-initramfs.cpio" \
		--gen-init-cpio "$obj/usr/gen_init_cpio" \
		--kunit-tool "$src/tools/testing/kunit/kunit.py" \
		--modules "$modules" \
		${ZSP_TIMEOUT:+--timeout "$ZSP_TIMEOUT"} ${ZSP_SILENCE:+--silence "$ZSP_SILENCE"} \
		${ZSP_MAX_BOOTS:+--max-boots "$ZSP_MAX_BOOTS"} \
		--store "$ZSP_CACHE/cell-results" ${ZSP_FRESH:+--fresh} \
		--out "$DIR"
}

# ZSP_CELL_STAGE=prepare|boot runs one half (run.sh boots a cell while
# the next one builds); the default runs both.
main() {
	local tree=$1 alloc=$2 modules=${4:-} obj
	DIR=$3 CELL="$tree-$alloc"
	mkdir -p "$DIR"
	obj=$(obj_dir "$tree" "$alloc")
	case ${ZSP_CELL_STAGE:-all} in
	prepare) prepare "$tree" "$alloc" "$obj" ;;
	boot) boot_cell "$tree" "$alloc" "$obj" "$modules" ;;
	*)
		prepare "$tree" "$alloc" "$obj"
		boot_cell "$tree" "$alloc" "$obj" "$modules"
		;;
	esac
}

main "$@"
