#!/usr/bin/env bash
# initramfs.sh TREE ALLOC OUT: the cell's initramfs (busybox-static, /init,
# the test module and upstream's test modules that this config built),
# written by the tree's own usr/gen_init_cpio, so no root is needed for
# /dev/console. The per-boot plan is a second archive the boot appends.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BUSYBOX=${ZSP_BUSYBOX:-/bin/busybox}
# Upstream's tests, run as a regression gate where the config builds them.
UPSTREAM_MODULES="lib/test_meminit.ko lib/slub_kunit.ko"

cpio_spec() {
	local obj=$1 mod=$2 ko
	cat <<-SPEC
		dir /dev 0755 0 0
		nod /dev/console 0600 0 0 c 5 1
		dir /proc 0755 0 0
		dir /sys 0755 0 0
		dir /bin 0755 0 0
		dir /etc 0755 0 0
		dir /etc/zsp 0755 0 0
		dir /lib 0755 0 0
		dir /lib/modules 0755 0 0
		file /bin/busybox $BUSYBOX 0755 0 0
		file /init $ZSP_ROOT/matrix/guest-init 0755 0 0
		file /lib/modules/zero_size_plan.ko $mod/zero_size_plan.ko 0644 0 0
		file /lib/modules/zero_size_test.ko $mod/zero_size_test.ko 0644 0 0
		file /lib/modules/zero_size_bench.ko $mod/zero_size_bench.ko 0644 0 0
	SPEC
	for ko in $UPSTREAM_MODULES; do
		[ -f "$obj/$ko" ] && printf 'file /lib/modules/%s %s 0644 0 0\n' "$(basename "$ko")" "$obj/$ko"
	done
	return 0
}

main() {
	local tree=$1 alloc=$2 out=$3 obj mod
	obj=$(obj_dir "$tree" "$alloc")
	mod="$ZSP_CACHE/mod/$tree-$alloc"
	[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing; install it: apt-get install busybox-static"
	cpio_spec "$obj" "$mod" >"$out.spec"
	# -t: fixed times for the dirs, so that unchanged inputs give the same
	# archive (zsp/cache.py hashes it).
	"$obj/usr/gen_init_cpio" -t 0 "$out.spec" >"$out.tmp"
	mv "$out.tmp" "$out"
}

main "$@"
