# shellcheck shell=bash
# Shared paths and helpers for the matrix scripts. Sourced, not run.

ZSP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# zsp SUBCOMMAND ARGS...: the harness's Python side (matrix/zsp/).
zsp() {
	PYTHONPATH="$ZSP_ROOT/matrix" python3 -m zsp "$@"
}

# The axes come from zsp/axes.py, their one place.
ZSP_ALLOCATORS=$(zsp internal axes allocators)
# shellcheck disable=SC2034 # read by the scripts that source this
ZSP_TREES=$(zsp internal axes trees)
export ZSP_ROOT

# die MSG: the one-line error every script ends with on bad input.
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The run's start, shared by every script it calls, for progress lines.
ZSP_T0=${ZSP_T0:-$(date +%s)}
export ZSP_T0

# log MSG: a progress line on stderr, with the seconds since the run began.
log() {
	printf '[%4ds] %s\n' "$(($(date +%s) - ZSP_T0))" "$*" >&2
}

check_alloc() {
	case " $ZSP_ALLOCATORS " in
	*" $1 "*) ;;
	*) die "unknown ALLOC '$1'; valid: $ZSP_ALLOCATORS" ;;
	esac
}

# settings FLAG...: the Makefile's flags for zsp (its ZSP_FLAGS: --cache,
# and --patches, --fresh, --jobs when set), kept in the array ZSP_FLAGS
# for every zsp call; ZSP_CACHE and ZSP_PATCHES are the two the scripts
# read themselves.
settings() {
	ZSP_FLAGS=("$@")
	ZSP_CACHE=''
	ZSP_PATCHES=''
	while [ $# -gt 1 ]; do
		case $1 in
		--cache) ZSP_CACHE=$2 ;;
		--patches) ZSP_PATCHES=$2 ;;
		esac
		shift
	done
	[ -n "$ZSP_CACHE" ] || die "no --cache among the flags '${ZSP_FLAGS[*]}'; run this through make"
	ZSP_PATCHES=$(zsp internal series --dir ${ZSP_PATCHES:+--patches "$ZSP_PATCHES"})
}

# Where tree $1 lives: Tree's own answer, the kernel axis included.
src_dir() { zsp internal tree --path-only "$1" "${ZSP_FLAGS[@]}"; }

# with_locks NAME... -- CMD...: run CMD under the cache's locks NAME...,
# or refuse: two runs on one tree would corrupt each other. "zsp
# internal locked" holds them in its own process, on descriptors no child
# inherits (a daemon a child leaves behind, such as git's auto gc, cannot
# keep them), and ends after CMD, however CMD ends. Locks a caller
# already holds for us (ZSP_LOCKS, set by zsp internal locked) are not
# taken again.
with_locks() {
	local names=()
	while [ "$1" != -- ]; do
		case " ${ZSP_LOCKS:-} " in
		*" $1 "*) ;;
		*) names+=(--lock "$1") ;;
		esac
		shift
	done
	shift
	if [ ${#names[@]} -eq 0 ]; then
		"$@"
		return
	fi
	zsp internal locked --cache "$ZSP_CACHE" "${names[@]}" -- "$@"
}

# relock NAME... -- "$@": at the top of a script's main, run the script
# again under with_locks, unless it already holds every NAME.
relock() {
	local n need=0
	for n in "$@"; do
		[ "$n" != -- ] || break
		case " ${ZSP_LOCKS:-} " in
		*" $n "*) ;;
		*) need=1 ;;
		esac
	done
	[ "$need" -eq 1 ] || return 0
	with_locks "$@"
	exit
}
