# Zero-size allocation contract: patch series + SLAB/SLUB/SLOB test matrix.
#
# The pipeline of one cell (kernel, tree, profile, allocator), as
# "python3 -m zsp run" (matrix/zsp/pipeline.py) drives it:
#
#   tree       zsp/kernel.py  Tree      unpack linux-source-6.1 once into $(CACHE)/src/TREE;
#                                       "patched": git repo, git am of patches/series
#   config     zsp/kernel.py  CellBuild tinyconfig + the profile's fragments + ALLOC.config
#                                       (the tree's merge_config.sh), every option verified
#   kernel                              bzImage + modules in $(CACHE)/src/TREE/o-ALLOC (ccache)
#   module                              kunit/*.ko, out of tree (M=)
#   initramfs                           busybox-static + matrix/guest-init + modules
#   boot       zsp/runner.py            QEMU (-smp 2, -nic none, timeouts) via zsp/qemu.py;
#                                       boots again after a crashing or hanging case;
#                                       reuses an earlier cell's results when kernel,
#                                       initramfs and harness hash the same (zsp/cache.py)
#   parse      zsp/console.py           console -> per-module KTAP -> the tree's kunit.py parse
#              zsp/handlers.py          (zsp/ktap.py), a handler per module; zsp/verdict.py
#                                       judges the cases against the console -> rows
#   table      zsp/table.py             results/RUN/{table.txt,results.json}
#
# zsp/axes.py holds the matrix's axes as data (kernels, trees, profiles);
# python3 -m zsp -h lists the subcommands, each with its flags (the
# plumbing apart: python3 -m zsp internal -h).
# "zsp bisect" and "zsp series-check" (zsp/commits.py) run cells on
# commits of the patched tree, git bisect run calling "zsp internal
# bisect-step";
# "zsp mutants" on a copy of it with one wrong fix (matrix/mutants/*.patch)
# applied, and each must fail; "zsp test" (zsp/testrun.py) runs the stages
# of "make test", matrix/bench.sh those of "make bench". Nothing here loads a module
# into the host kernel: the modules run in QEMU guests only.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Every variable below is in "make help"; zsp gets them as flags, and
# their defaults (but CACHE's and RESULTS', which make clean needs) are
# zsp's own: python3 -m zsp SUBCOMMAND -h.
ROOT := $(CURDIR)
CACHE ?= $(ROOT)/build
RESULTS ?= $(ROOT)/results
ALLOC ?= all
TREE ?= both
# Empty: zsp's default profile (tiny); "all": every profile.
PROFILE ?=
# Empty: zsp's default kernel (6.1); "all": every kernel (make run, matrix).
KERNEL ?=
GUEST_BOOTS ?= 3
# FRESH=1: run kbuild and boot every cell even when no input changed.
ZSP_FLAGS := --cache $(abspath $(CACHE))$(if $(PATCHES), --patches $(abspath $(PATCHES)))$(if \
	$(FRESH), --fresh)$(if $(JOBS), --jobs $(JOBS))$(if $(filter-out all,$(KERNEL)), \
	--kernel-version $(KERNEL))

# The axes' one place is matrix/zsp/axes.py. Without python3 (a fresh
# machine before "make deps") they are empty and zsp checks ALLOC.
ZSP := PYTHONPATH=$(ROOT)/matrix python3 -m zsp
ALLOCATORS := $(shell $(ZSP) internal axes all-allocators 2>/dev/null)
KERNELS := $(shell $(ZSP) internal axes kernels 2>/dev/null)
TREES := $(shell $(ZSP) internal axes trees 2>/dev/null)
PROFILES := $(shell $(ZSP) internal axes profiles 2>/dev/null)
RUN_ID := $(shell echo $$(date +%Y%m%d-%H%M%S)-$$$$)

sel_alloc = $(if $(filter all,$(ALLOC)),$(ALLOCATORS),$(ALLOC))
sel_tree = $(if $(filter both,$(TREE)),$(TREES),$(TREE))
sel_profile = $(if $(filter all,$(PROFILE)),$(PROFILES),$(PROFILE))

# Bad input stops here, with one line, before any work.
ifneq ($(ALLOCATORS),)
ifneq ($(filter-out $(ALLOCATORS) all,$(ALLOC)),)
$(error unknown ALLOC '$(ALLOC)'; valid: $(ALLOCATORS) all)
endif
ifneq ($(filter-out $(TREES) both,$(TREE)),)
$(error unknown TREE '$(TREE)'; valid: $(TREES) both)
endif
ifneq ($(filter-out $(PROFILES) all,$(PROFILE)),)
$(error unknown PROFILE '$(PROFILE)'; valid: $(PROFILES) all)
endif
ifneq ($(filter-out $(KERNELS) all,$(KERNEL)),)
$(error unknown KERNEL '$(KERNEL)'; valid: $(KERNELS) all)
endif
ifneq ($(filter all,$(KERNEL)),)
ifneq ($(filter-out run matrix check,$(MAKECMDGOALS)),)
$(error KERNEL=all is for make run, matrix and check; give one of: $(KERNELS))
endif
endif
ifneq ($(filter bisect,$(MAKECMDGOALS)),)
ifeq ($(filter $(ALLOCATORS),$(ALLOC)),)
$(error make bisect needs one ALLOC=, one of: $(ALLOCATORS))
endif
endif
endif
# Refused on purpose: the test modules crash kernels and run only in guests.
ifneq ($(filter insmod modprobe rmmod load install modules_install,$(MAKECMDGOALS)),)
$(error '$(MAKECMDGOALS)' would touch the host kernel; the modules run only in QEMU guests (make run))
endif

.PHONY: help deps matrix run test check docs selftest callsites bisect series-check mutants bench clean \
	distclean profile-configs cover-letter send merge export callers

help:
	@echo 'make matrix              build, boot and test all allocators, vanilla and patched'
	@echo 'make run ALLOC=slub      one allocator (TREE=vanilla|patched|both, default both)'
	@echo 'make test                everything CI runs; ends with "N passed, N failed"'
	@echo 'make profile-configs [KERNEL=]  configs/[KERNEL/]{distro,debug,leak}*.config (distro: Debian'"'"'s config, its'
	@echo '                         package in the kernel'"'"'s record, zsp/axes.py: Kernel.config_package)'
	@echo 'make check [KERNEL=..]  shellcheck, mypy --strict, docs current; each series (KERNEL=: one): checkpatch --strict, git am,'
	@echo '                         sign-off, Fixes: lines, the cover letter current, a git send-email dry run'
	@echo 'make cover-letter [RUN=results/RUN] [KERNEL=6.12]  PATCHES/0000-cover-letter.patch: PATCHES/cover-letter.txt'
	@echo '                         + recipients (get_maintainer.pl), RUN'"'"'s results (default: latest)'
	@echo 'make send [KERNEL=7.3]  the series as your git identity (git config) would mail it: git send-email --dry-run, nothing sent'
	@echo 'make docs                README.md and docs/: rewrite the blocks the source decides'
	@echo 'make selftest            harness unit tests (no kernel build)'
	@echo 'make bisect ALLOC=slob [GOOD=patch|base|commit] [BAD=...] [CASE=name] [PATCHES=dir]'
	@echo '                         first patch that breaks one allocator'
	@echo 'make callsites [ALLOC=]  who asks for zero bytes: caller -> count per allocator (patched, distro)'
	@echo 'make callers [KERNEL=]   who can hit this: calls of the fixed frees that may get ZERO_SIZE_PTR'
	@echo '                         (Coccinelle, matrix/cocci/, on the vanilla tree; default: mainline'"'"'s)'
	@echo 'make series-check [KERNEL=6.12]  every prefix of the series x every allocator'
	@echo 'make merge RUNS="r1 r2"  cells run apart (CI jobs, machines, caches) as one run'
	@echo 'make export [RUN=..]     RUN/kcidb.json (KernelCI kcidb v5) and RUN/junit.xml (default: latest)'
	@echo 'make mutants [MUTANT=..] [KERNEL=] [PROFILE=]  every wrong fix in matrix/mutants/ for them must be killed'
	@echo 'make bench [COLD=1]      pipeline, kunit.py peer and in-guest benchmarks (JSON + table);'
	@echo '                         COLD=1 adds a whole matrix in an empty scratch cache (~30 min)'
	@echo 'make clean               remove build dirs (keeps the unpacked trees, ccache, results)'
	@echo 'make distclean           remove the whole cache ($(CACHE)); results stay'
	@echo 'Variables (default):'
	@echo '  ALLOC=$(subst $(eval) ,|,$(ALLOCATORS))|all (all)   TREE=$(subst $(eval) ,|,$(TREES))|both (both)'
	@echo '  PROFILE=$(subst $(eval) ,|,$(PROFILES))|all   kernel configs (zsp/axes.py: PROFILES, DEFAULT_PROFILE)'
	@echo '  KERNEL=$(subst $(eval) ,|,$(KERNELS))|all   Debian kernel source and its series (zsp/axes.py: KERNELS,'
	@echo '                DEFAULT_KERNEL); all: make run, matrix, check (check: all by default)'
	@echo '  CACHE=dir     trees, O= dirs, ccache, locks ($(CACHE))'
	@echo '  RESULTS=dir   one directory per run, never overwritten ($(RESULTS))'
	@echo '  PATCHES=dir   a series to use instead of patches/ (its "series" file names the order)'
	@echo '  FRESH=1       run kbuild and boot even when no input of a cell changed'
	@echo '  JOBS=n        make -j of kernel builds (every core)'
	@echo '  GOOD= BAD= CASE=   make bisect: a patch file, "base" or a commit (base, the tip); one case'
	@echo '  MUTANT=name   make mutants: only this one (all of matrix/mutants/)'
	@echo '  COLD=1 GUEST_BOOTS=n   make bench: add the cold matrix; boots per cell ($(GUEST_BOOTS))'
	@echo '  BEFORE=rev    make bench: the harness as of that commit, measured side by side'
	@echo 'Each run: $(RESULTS)/<run>/ (table.txt, results.json, per-cell logs).'
	@echo 'The harness: python3 -m zsp -h (PYTHONPATH=matrix), its knobs as flags with help.'

deps:
	@ZSP_CACHE=$(abspath $(CACHE)) matrix/deps.sh

matrix: ALLOC = all
matrix: run

run: deps
	@mkdir -p $(RESULTS)/$(RUN_ID) && ln -sfn $(RUN_ID) $(RESULTS)/latest
	@$(ZSP) run $(RESULTS)/$(RUN_ID) --trees "$(sel_tree)" --allocs "$(sel_alloc)" \
		--profiles "$(sel_profile)" --kernels "$(KERNEL)" $(ZSP_FLAGS)

# A run's results for other tools: RUN/kcidb.json (KernelCI) and RUN/junit.xml.
export:
	@$(ZSP) export $(or $(RUN),$(RESULTS)/latest)

# Cells of several runs (CI jobs, other machines or caches) as one run.
# RUNS may hold newlines (RUNS="$$(ls -d ...)", as the CI files give it):
# strip makes them spaces, else each would end the recipe's shell line.
merge:
	@mkdir -p $(RESULTS); rc=0; $(ZSP) merge $(RESULTS)/merge-$(RUN_ID) $(strip $(RUNS)) || rc=$$?; \
	if [ -d $(RESULTS)/merge-$(RUN_ID) ]; then ln -sfn merge-$(RUN_ID) $(RESULTS)/latest; fi; \
	exit $$rc

# Who asks for zero bytes: the patched cells of the profiles that count
# (zsp/axes.py: callsites), then caller -> count per allocator.
callsites: deps
	@mkdir -p $(RESULTS)/callsites-$(RUN_ID)
	@$(ZSP) run $(RESULTS)/callsites-$(RUN_ID) --trees patched --allocs "$(sel_alloc)" \
		--profiles "$$($(ZSP) internal axes callsites-profiles)" $(ZSP_FLAGS) >&2
	@$(ZSP) callsites $(RESULTS)/callsites-$(RUN_ID)

# Who can hit this: the calls of the frees the series fixes whose pointer
# may be ZERO_SIZE_PTR, in a vanilla tree (KERNEL=; default: mainline's).
callers:
	@ZSP_CACHE=$(abspath $(CACHE)) matrix/deps.sh coccinelle
	@matrix/callers.sh $(RESULTS)/callers-$(RUN_ID) $(ZSP_FLAGS)

bisect: deps
	@$(ZSP) bisect $(RESULTS)/bisect-$(ALLOC)-$(RUN_ID) --alloc $(ALLOC) \
		$(if $(GOOD),--good "$(GOOD)") $(if $(BAD),--bad "$(BAD)") --case "$(CASE)" $(ZSP_FLAGS)

series-check: deps
	@$(ZSP) series-check $(RESULTS)/series-$(RUN_ID) $(ZSP_FLAGS)

mutants: deps
	@$(ZSP) mutants $(RESULTS)/mutants-$(RUN_ID) $(MUTANT) $(if $(PROFILE),--profile $(PROFILE)) \
		$(ZSP_FLAGS)

# The series as your git identity would mail it: git send-email --dry-run.
send: deps
	@$(ZSP) send $(RESULTS)/send-$(RUN_ID) $(ZSP_FLAGS)

# The series' cover letter, with the results of RUN (default: the latest run).
cover-letter: deps
	@$(ZSP) cover-letter $(or $(RUN),$(RESULTS)/latest) $(ZSP_FLAGS)

check: deps
	@$(ZSP) check --kernels "$(or $(KERNEL),all)" $(ZSP_FLAGS)

profile-configs:
	@ZSP_CACHE=$(abspath $(CACHE)) matrix/deps.sh $$($(ZSP) internal axes config-package$(if \
		$(KERNEL), --kernel $(KERNEL)))
	@$(ZSP) profile-configs $(ZSP_FLAGS)

# The lists and counts in README.md and docs/ that the source decides.
docs:
	@$(ZSP) docs

selftest:
	@cd matrix && python3 -m unittest discover -s tests -t . -q

test: deps
	@$(ZSP) test $(RESULTS) $(ZSP_FLAGS)

clean:
	rm -rf $(CACHE)/src/*/o-* $(CACHE)/mod

distclean:
	rm -rf $(CACHE)

bench: deps
	@matrix/bench.sh $(RESULTS)/bench-$(RUN_ID) "$(COLD)" $(GUEST_BOOTS) "$(BEFORE)" $(ZSP_FLAGS)
