#!/usr/bin/env bash
# bisect-step.sh ALLOC CASE RUN: one git bisect run step in the patched
# tree (the current directory): build ALLOC's kernel at the checked-out
# commit, boot it, run the suite. Exit 0 when the contract cases (or CASE
# alone) pass, 1 when any fails, crashes or hangs, 125 when the commit
# cannot be built (git bisect skips it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local alloc=$1 case=$2 run=$3 commit
	commit=$(git rev-parse --short=12 HEAD)
	log "bisect step $commit ($(git log -1 --format=%s HEAD))"
	zsp cell --tree patched --alloc "$alloc" --out "$run/$commit" --modules zero_size_test
	zsp bisect-verdict "$run/$commit/cell.json" --case "$case"
}

main "$@"
