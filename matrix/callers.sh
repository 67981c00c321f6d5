#!/usr/bin/env bash
# callers.sh OUT FLAG...: "who can hit this", make callers. In the vanilla
# tree of one kernel (the Makefile's KERNEL=, default: mainline's,
# axes.MAINLINE_KERNEL), every call of the free paths the series fixes,
# counted, and those whose pointer may be ZERO_SIZE_PTR, found by
# matrix/cocci/sentinel-callers.cocci (its header says what it finds and
# misses). Writes OUT, a new directory (never an earlier run's):
#   callers.txt   the script's findings, "file:line: API: why", sorted
#   summary.txt   per API: call lines, files, call sites found
#   files.txt     the files spatch was given; spatch.log its stderr
# FLAGs: the Makefile's for zsp. The tree is read, never written or
# built: no lock is taken (a vanilla tree does not change once unpacked;
# only if it is missing is it unpacked, under its lock). spatch runs at
# nice 19, one file at a time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COCCI=$ZSP_ROOT/matrix/cocci/sentinel-callers.cocci
# The APIs counted, in the summary's order.
APIS=(kfree_bulk kmem_cache_free_bulk kmem_cache_free kvfree_rcu_mightsleep
	kfree_rcu_mightsleep kvfree_rcu kfree_rcu mempool_create_kmalloc_pool
	mempool_init_kmalloc_pool)
# What else the script matches: a kmalloc pool made with mempool_kmalloc
# itself (mempool_create_node(n, mempool_kmalloc, ...)), and the
# allocations (a superset of the script's list, for the file filter).
POOL_FN=mempool_kmalloc
ALLOC_RE='\bk[a-z_]*(alloc|dup)[a-z_]*[[:space:]]*\('
# Not the kernel's: userspace tools, and the O= dirs of the cells.
PATHSPEC=('*.c' '*.h' ':!tools' ':!o-*')
# Not given to spatch: the mempool's own code, whose macros it would
# report as pools of size _size.
OWN='^(mm/mempool\.c|include/linux/mempool\.h)'

# grep_tree ARG...: git grep in the tree, which need not be a repository;
# no match is no error.
grep_tree() {
	local rc=0
	git --no-optional-locks -C "$TREE" grep --no-index "$@" -- "${PATHSPEC[@]}" || rc=$?
	[ "$rc" -le 1 ] || die "git grep $* failed in $TREE (rc=$rc)"
}

# call_lines API: the lines of the tree that call API, "file:line:text":
# not its comments, its #define, its declaration or a mention as "API()".
call_lines() {
	grep_tree -n -E "\\b$1[[:space:]]*\\(" |
		grep -v -E '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
		grep -v -E "#[[:space:]]*define[[:space:]]+$1\\b" |
		grep -v -E "\\b$1[[:space:]]*\\([[:space:]]*\\)" |
		grep -v -E "\\b(void|bool|int)[[:space:]]+\\**$1[[:space:]]*\\(" || true
}

# pool_lines: mempool_create/init*() of a kmalloc pool with mempool_kmalloc
# named, outside the mempool code that defines it.
pool_lines() {
	grep_tree -n -E "\\b$POOL_FN\\b" | grep -v -E "$OWN:" |
		grep -v -E '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' || true
}

# kernel_flag FLAG...: the value of --kernel-version among the flags, if any.
kernel_flag() {
	while [ $# -gt 1 ]; do
		[ "$1" != --kernel-version ] || echo "$2"
		shift
	done
}

# kernel_version: the tree's own, from its Makefile (make is not run in it).
kernel_version() {
	awk -F' = ' '/^VERSION =/ {v=$2} /^PATCHLEVEL =/ {p=$2} /^SUBLEVEL =/ {s=$2}
		/^EXTRAVERSION =/ {e=$2; exit} END {print v "." p "." s e}' "$TREE/Makefile"
}

# summary_row NAME LINES [API_RE]: the API's call lines and files, and the
# call sites callers.txt reports for it, or for the APIs API_RE matches
# (several allocations freed at one site: one).
summary_row() {
	local name=$1 lines=$2 re=${3:-^$1\$} calls files found
	calls=$(grep -c . <<<"$lines" || true)
	files=$(cut -d: -f1 <<<"$lines" | sort -u | grep -c . || true)
	found=$(awk -v re="$re" -F': ' '$2 ~ re {print $1}' "$OUT/callers.txt" | sort -u | grep -c . || true)
	printf '%-38s %6s %6s %6s\n' "$name" "$calls" "$files" "$found"
}

main() {
	OUT=${1:?usage: callers.sh OUT FLAG...}
	shift
	settings "$@"
	KERNEL=$(kernel_flag "${ZSP_FLAGS[@]}")
	if [ -z "$KERNEL" ]; then
		KERNEL=$(PYTHONPATH="$ZSP_ROOT/matrix" python3 -c 'from zsp import axes; print(axes.MAINLINE_KERNEL)')
		ZSP_FLAGS+=(--kernel-version "$KERNEL")
	fi
	command -v spatch >/dev/null || die "spatch is missing; run: make deps (apt-get install coccinelle)"
	TREE=$(src_dir vanilla)
	if [ ! -e "$TREE/.zsp-unpacked" ]; then
		TREE=$(zsp internal tree vanilla "${ZSP_FLAGS[@]}")
	fi
	mkdir -p "$(dirname "$OUT")"
	mkdir "$OUT" 2>/dev/null || die "$OUT exists; results are never overwritten"

	local api all groups
	all=$(printf '%s|' "${APIS[@]}" "$POOL_FN")
	all="\\b(${all%|})[[:space:]]*[(,]"
	# The files that call an API and allocate, or make a kmalloc pool.
	grep_tree -l -E "$all" | grep -v -E "$OWN\$" | while read -r f; do
		if grep -q -E "$ALLOC_RE" "$TREE/$f" || grep -q -E '\bmempool_' "$TREE/$f"; then
			echo "$f"
		fi
	done | LC_ALL=C sort >"$OUT/files.txt"
	log "callers: $(wc -l <"$OUT/files.txt") files of $TREE to spatch"
	# One group per file: each is parsed and matched on its own. spatch
	# runs outside the tree, whose .cocciconfig is for make coccicheck.
	groups=$OUT/files.groups
	sed "s|^|$TREE/|; s|\$|\\n|" "$OUT/files.txt" >"$groups"
	(cd "$OUT" && nice -n 19 spatch --very-quiet --no-includes --timeout 120 -D report \
		--sp-file "$COCCI" --file-groups "$groups") >"$OUT/spatch.out" 2>"$OUT/spatch.log" ||
		die "spatch failed: $(tail -n 3 "$OUT/spatch.log")"
	rm -f "$groups"
	sed "s|^$TREE/||" "$OUT/spatch.out" | LC_ALL=C sort -u -t: -k1,1 -k2,2n -k3 >"$OUT/callers.txt"
	rm -f "$OUT/spatch.out"

	{
		echo "who can hit this: Linux $(kernel_version), vanilla" \
			"($(zsp internal axes package --kernel "$KERNEL")), $TREE"
		echo "found by matrix/cocci/sentinel-callers.cocci (its header: what it misses)"
		echo "calls: lines that call the API (grep: .c and .h, not tools/, not comments)"
		echo "found: call sites whose pointer (bulk: an array element) the same function"
		echo "       allocated with a size that is not constant; pools: of such a size"
		printf '%-38s %6s %6s %6s\n' API calls files found
		for api in "${APIS[@]}"; do
			summary_row "$api" "$(call_lines "$api")"
		done
		summary_row "mempool_create/init*($POOL_FN)" "$(pool_lines)" '^mempool_(create|init)(_node)?$'
		echo "spatch: $(wc -l <"$OUT/files.txt") files, $(grep -c . "$OUT/callers.txt" || true) findings" \
			"($(grep -c . "$OUT/spatch.log" || true) lines in spatch.log)"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	log "callers: $OUT/callers.txt"
}

main "$@"
