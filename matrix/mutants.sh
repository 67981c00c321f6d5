#!/usr/bin/env bash
# mutants.sh RUN_DIR [MUTANT...]: mutation testing of the contract suite.
#
# Each matrix/mutants/NN-name.patch is a plausible wrong fix: one small
# edit away from a patch of the series ("Mutates:"), applied on top of the
# whole series and built for the allocator it targets ("Allocator:"). The
# suite must kill it: some contract case fails, crashes or hangs. A mutant
# that passes survives and fails the run; one that cannot be built or
# booted is an error, neither killed nor survived.
#
# The mutants build in a hard-linked copy of the patched tree
# (build/src/mutant, no .git), one O= dir per allocator, so that the
# patched cells' trees and objects are never touched and each mutant
# rebuilds only the file it changes. Prints one "ok"/"FAIL" line per
# mutant, then the table mutant -> killing cases (RUN_DIR/mutants.txt).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MUTANTS=$ZSP_ROOT/matrix/mutants
# Boots per mutant: the first crash names a killer; three boots show a
# few more without spending CI time on the rest of the suite.
MUTANT_BOOTS=3

all_names() {
	local m
	for m in "$MUTANTS"/*.patch; do
		printf '%s ' "$(basename "$m" .patch)"
	done
}

field() { sed -n "s/^$1: *//p" "$2" | head -1; }

# fresh_copies: the files listed in the copy's .zsp-mutant become private
# copies of the patched tree's (new inodes with a fresh mtime, so that
# kbuild recompiles them and nothing is written through a link).
fresh_copies() {
	local src dst f
	src=$(src_dir patched)
	dst=$(src_dir mutant)
	while read -r f; do
		cp --remove-destination "$src/$f" "$dst/$f"
	done <"$dst/.zsp-mutant"
}

# restore: put back the files the last mutant changed.
restore() {
	local dst
	dst=$(src_dir mutant)
	[ -f "$dst/.zsp-mutant" ] || return 0
	fresh_copies
	rm -f "$dst/.zsp-mutant"
}

# apply PATCH: apply one mutant to the copy, remembering what it touched.
# Git must not find the project's own repository above build/: from
# inside it, git apply would skip every path outside the current
# directory, silently.
apply() {
	local src dst f
	src=$(src_dir patched)
	dst=$(src_dir mutant)
	git apply --numstat "$1" | cut -f3 >"$dst/.zsp-mutant"
	fresh_copies
	(cd "$dst" && GIT_CEILING_DIRECTORIES=$(dirname "$dst") git apply "$1") ||
		die "mutant $(basename "$1") does not apply to the series; regenerate it"
	while read -r f; do
		! cmp -s "$src/$f" "$dst/$f" ||
			die "mutant $(basename "$1") left $f unchanged"
	done <"$dst/.zsp-mutant"
}

# judge NAME ALLOC DIR WANT: one "ok"/"FAIL" line and one table row. WANT
# is "killed" for a mutant, "survived" for the unmutated control.
judge() {
	local name=$1 alloc=$2 dir=$3 want=$4 verdict
	if [ -f "$dir/error" ]; then
		verdict="error	$(cat "$dir/error")"
	else
		verdict=$(zsp mutant-verdict "$dir/cell.json")
	fi
	printf '%s\t%s\t%s\n' "$name" "$alloc" "$verdict" >>"$RUN/mutants.tsv"
	case $verdict in
	"$want"*) echo "ok   mutant $name ($alloc) ${verdict//	/ }" ;;
	*) echo "FAIL mutant $name ($alloc) ${verdict//	/ }" ;;
	esac
}

# run_one NAME ALLOC WANT: one cell of the copy as it stands.
run_one() {
	zsp cell --tree mutant --alloc "$2" --out "$RUN/$1" --modules zero_size_test \
		--max-boots "$MUTANT_BOOTS" || true
	judge "$1" "$2" "$RUN/$1" "$3"
}

main() {
	local m name alloc control want=("${@:2}")
	RUN=$1
	for name in "${want[@]}"; do
		[ -f "$MUTANTS/$name.patch" ] || die "unknown MUTANT '$name'; valid: $(all_names)"
	done
	relock src-patched src-mutant -- "$0" "$@"
	mkdir -p "$RUN"
	: >"$RUN/mutants.tsv"
	zsp tree patched >/dev/null
	link_patched_copy "$(src_dir mutant)" || true
	restore
	# Grouped by allocator: each O= dir rebuilds one file per mutant. The
	# control, the copy without a mutant, must pass in the same harness:
	# otherwise a "kill" could be the harness's doing, not the mutant's.
	for alloc in $ZSP_ALLOCATORS; do
		control=""
		for m in "$MUTANTS"/*.patch; do
			name=$(basename "$m" .patch)
			[ "$(field Allocator "$m")" = "$alloc" ] || continue
			if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then
				continue
			fi
			if [ -z "$control" ]; then
				control=1
				log "mutant control on $alloc: the series as it is must pass"
				run_one "control-$alloc" "$alloc" survived
			fi
			log "mutant $name on $alloc: $(field Mutant "$m")"
			apply "$m"
			run_one "$name" "$alloc" killed
			restore
		done
	done
	zsp mutant-table "$RUN/mutants.tsv" |
		tee "$RUN/mutants.txt" >&2
}

main "$@"
