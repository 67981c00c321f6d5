#!/usr/bin/env bash
# bisect.sh RUN_DIR ALLOC [GOOD] [BAD] [CASE]: find the first patch of the
# series (PATCHES=dir with a series file; default patches/) that breaks
# ALLOC. GOOD/BAD are patch file names, "base", or commits of the patched
# tree (defaults: base, the last patch). CASE limits the verdict to one
# test case. Both ends are checked first; then git bisect run drives
# bisect-step.sh (build, boot, suite) over the commits between them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

STEP=$ZSP_ROOT/matrix/bisect-step.sh

# patch_commit SRC NAME: the commit that applied patch NAME, "base", or a
# commit given as such.
resolve() {
	local src=$1 name=$2 i=0 line
	[ "$name" = base ] && { git -C "$src" rev-parse zsp-base; return; }
	while read -r line; do
		i=$((i + 1))
		if [ "$line" = "$name" ] || [ "$(basename "$line")" = "$name" ] ||
			[ "$(basename "$line" .patch)" = "$name" ]; then
			git -C "$src" rev-list --reverse zsp-base..HEAD | sed -n "${i}p"
			return
		fi
	done < <(zsp series)
	git -C "$src" rev-parse -q --verify "$name^{commit}" 2>/dev/null ||
		die "'$name' is neither a patch of $ZSP_PATCHES/series, 'base', nor a commit of $src"
}

# describe SRC COMMIT: "slub/0004-....patch (subject)" for a series commit.
describe() {
	local src=$1 commit=$2 n
	n=$(git -C "$src" rev-list --count "zsp-base..$commit")
	printf '%s (%s)\n' "$(zsp series | sed -n "${n}p")" \
		"$(git -C "$src" log -1 --format=%s "$commit")"
}

# verdict SRC COMMIT: run one step at COMMIT; 0 good, 1 bad, 125 untestable.
verdict() {
	local src=$1 commit=$2 rc=0
	git -C "$src" checkout -q "$commit"
	(cd "$src" && "$STEP" "$ALLOC" "$CASE" "$RUN") || rc=$?
	return "$rc"
}

main() {
	RUN=$1 ALLOC=$2
	local good=${3:-base} bad=${4:-} gc bc rc first
	CASE=${5:-}
	check_alloc "$ALLOC"
	if [ -n "$CASE" ] && ! grep -q "KUNIT_CASE($CASE)" "$ZSP_ROOT/kunit/zero_size_test.c"; then
		die "unknown CASE '$CASE'; valid: $(grep -o 'KUNIT_CASE(\w*)' "$ZSP_ROOT/kunit/zero_size_test.c" | sed 's/KUNIT_CASE(\(.*\))/\1/' | tr '\n' ' ')"
	fi
	relock src-patched -- "$0" "$@"
	export ALLOC CASE RUN
	mkdir -p "$RUN"
	# Globals: the EXIT trap needs them after main returns.
	src=$(zsp tree patched)
	tip=$(git -C "$src" rev-parse HEAD)
	[ -n "$bad" ] || bad=$tip
	gc=$(resolve "$src" "$good")
	bc=$(resolve "$src" "$bad")
	trap 'back_to_series "$src"' EXIT
	log "bisect $ALLOC${CASE:+ case $CASE}: checking GOOD=$good and BAD=$bad first"
	rc=0; verdict "$src" "$gc" || rc=$?
	[ "$rc" -eq 0 ] || die "GOOD=$good is not good on $ALLOC (step exit $rc); logs: $RUN"
	rc=0; verdict "$src" "$bc" || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "nothing in $good..$bad is bad on $ALLOC${CASE:+ for $CASE}: BAD=$bad passes; logs: $RUN"
		return 0
	fi
	[ "$rc" -eq 1 ] || die "BAD=$bad cannot be tested on $ALLOC (step exit $rc); logs: $RUN"
	git -C "$src" bisect start "$bc" "$gc" >"$RUN/bisect.log" 2>&1 ||
		die "git bisect start failed; log: $RUN/bisect.log"
	git -C "$src" bisect run "$STEP" "$ALLOC" "$CASE" "$RUN" 2>&1 | tee -a "$RUN/bisect.log" >&2 ||
		die "git bisect run failed; log: $RUN/bisect.log"
	first=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$RUN/bisect.log")
	[ -n "$first" ] || die "git bisect found no first bad commit; log: $RUN/bisect.log"
	echo "first bad patch on $ALLOC${CASE:+ for $CASE}: $(describe "$src" "$first"); logs: $RUN"
}

main "$@"
