#!/usr/bin/env bash
# peer.sh ALLOC OUT FLAG...: the contract suite as the kernel's own tooling runs it,
# for "make bench" to set beside a cell of the matrix. The suite is built
# into a copy of the patched tree (lib/zsp-kunit, CONFIG_ZSP_KUNIT_TEST) and
# run by that tree's tools/testing/kunit/kunit.py run --arch=x86_64 with
# configs/base.config and configs/ALLOC.config as kunitconfig. Writes
# OUT/peer.json: wall seconds of a first and a second kunit.py run, and
# its verdicts. The copy shares the patched tree's files (hard links).
# FLAGs: the Makefile's for zsp.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# peer_tree: lib/zsp-kunit in a hard-linked copy of the patched tree,
# made again when the series changed.
peer_tree() {
	zsp internal copy-tree "$PEER/src" "${ZSP_FLAGS[@]}"
	if ! grep -q ZSP_KUNIT_TEST "$PEER/src/lib/Makefile"; then
		# sed -i writes new files: the patched tree's stay as they are.
		sed -i '$a\
obj-$(CONFIG_ZSP_KUNIT_TEST) += zsp-kunit/' "$PEER/src/lib/Makefile"
		sed -i '$a\
\
config ZSP_KUNIT_TEST\
	tristate "Zero-size allocation contract suite" if !KUNIT_ALL_TESTS\
	depends on KUNIT\
	default KUNIT_ALL_TESTS' "$PEER/src/lib/Kconfig.debug"
	fi
	mkdir -p "$PEER/src/lib/zsp-kunit"
	rm -f "$PEER/src/lib/zsp-kunit/"*.[ch]
	cp "$ZSP_ROOT"/kunit/*.[ch] "$PEER/src/lib/zsp-kunit/"
	# zero_size_test's objects: kunit/Kbuild's zero_size_test-y lines.
	{
		# shellcheck disable=SC2016 # a make variable, for make to expand
		echo 'obj-$(CONFIG_ZSP_KUNIT_TEST) += zero_size_plan.o zero_size_test.o'
		sed -n '/^zero_size_test-y/,/[^\\]$/p' "$ZSP_ROOT/kunit/Kbuild"
	} >"$PEER/src/lib/zsp-kunit/Makefile"
}

# kunitconfig ALLOC: the matrix's fragments without their modules (this
# kernel has the suite built in), plus the suite.
kunitconfig() {
	grep -hv '=m$' "$ZSP_ROOT/configs/base.config" "$ZSP_ROOT/configs/$1.config"
	echo 'CONFIG_ZSP_KUNIT_TEST=y'
}

# kunit_run NAME OUT: one kunit.py run, timed, its output in OUT/NAME.log.
kunit_run() {
	local name=$1 out=$2 t0 rc=0
	t0=$EPOCHREALTIME
	CCACHE_DIR=$ZSP_CACHE/ccache python3 "$PEER/src/tools/testing/kunit/kunit.py" run \
		--arch=x86_64 --build_dir="$PEER/build-$ALLOC" \
		--kunitconfig="$out/kunitconfig" --jobs="$(nproc)" --timeout=600 \
		--make_options CC="ccache gcc" --qemu_args='-smp 2 -nic none' \
		--json="$out/$name.json" >"$out/$name.log" 2>&1 || rc=$?
	printf '%s %s %d\n' "$name" "$(zsp internal bench elapsed "$t0")" "$rc" >>"$out/peer-times"
}

main() {
	ALLOC=$1
	local out=$2
	shift 2
	settings "$@"
	PEER=$ZSP_CACHE/peer
	check_alloc "$ALLOC"
	[ -f "$(src_dir patched)/.git/zsp-series" ] ||
		die "peer needs the patched tree; run: make run ALLOC=$ALLOC TREE=patched"
	mkdir -p "$out"
	relock peer -- "$0" "$ALLOC" "$out" "$@"
	rm -f "$out/peer-times"
	peer_tree
	kunitconfig "$ALLOC" >"$out/kunitconfig"
	log "peer: kunit.py run --arch=x86_64 ($ALLOC), first run"
	kunit_run first "$out"
	log "peer: kunit.py run, again with nothing changed"
	kunit_run again "$out"
	zsp internal bench peer "$out" "$ALLOC"
}

main "$@"
