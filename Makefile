# Zero-size allocation contract: patch series + SLAB/SLUB/SLOB test matrix.
#
# The pipeline, per cell (tree x allocator), as matrix/run.sh runs it:
#
#   tree       matrix/tree.sh       unpack linux-source-6.1 once into $(CACHE)/src;
#                                   "patched" = git repo + git am patches/series
#   config     matrix/config.sh     tinyconfig + configs/base.config + configs/ALLOC.config
#                                   (merge_config.sh), every option verified
#   kernel     matrix/build.sh      bzImage + modules in $(CACHE)/o/TREE-ALLOC (ccache)
#   module     matrix/module.sh     kunit/zero_size_test.ko, out of tree (M=)
#   initramfs  matrix/initramfs.sh  busybox-static + matrix/guest-init + modules
#   boot       matrix/cell.py       QEMU (TCG/KVM, -smp 2, -nic none, timeouts),
#                                   resumes after a crashing or hanging case
#   parse      matrix/console.py    console -> per-module KTAP -> tree's kunit.py parse --json
#   table      matrix/table.py      results/RUN/results.json + table.txt
#
# Nothing here loads a module into the host kernel: modules run in guests only.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

ROOT := $(CURDIR)
CACHE ?= $(ROOT)/build
RESULTS ?= $(ROOT)/results
ALLOC ?= all
TREE ?= both
export ZSP_CACHE := $(CACHE)

ALLOCATORS := slab slub slob
TREES := vanilla patched
RUN_ID := $(shell date +%Y%m%d-%H%M%S)-$$$$

sel_alloc = $(if $(filter all,$(ALLOC)),$(ALLOCATORS),$(ALLOC))
sel_tree = $(if $(filter both,$(TREE)),$(TREES),$(TREE))

.PHONY: help deps check-args matrix run test check selftest clean distclean \
	insmod modprobe load install modules_install

help:
	@echo 'make matrix              build, boot and test all allocators, vanilla and patched'
	@echo 'make run ALLOC=slub      one allocator (TREE=vanilla|patched|both, default both)'
	@echo 'make test                everything CI runs; ends with "N passed, N failed"'
	@echo 'make check               checkpatch --strict on the series; series applies with git am'
	@echo 'make selftest            harness self-tests (no kernel build)'
	@echo 'make clean               remove build dirs (keeps the unpacked tree, ccache, results)'
	@echo 'make distclean           remove the whole cache ($(CACHE)); results stay'
	@echo 'Variables: ALLOC=$(ALLOCATORS)|all  TREE=vanilla|patched|both  CACHE=$(CACHE)'
	@echo 'Results: $(RESULTS)/<run>/ (table.txt, results.json, per-cell logs), never overwritten'

deps:
	@matrix/deps.sh

# Validate ALLOC and TREE before any work, with one line each.
check-args:
	@for a in $(sel_alloc); do case " $(ALLOCATORS) " in *" $$a "*) ;; \
	  *) echo "error: unknown ALLOC '$$a'; valid: $(ALLOCATORS) all" >&2; exit 2;; esac; done
	@for t in $(sel_tree); do case " $(TREES) " in *" $$t "*) ;; \
	  *) echo "error: unknown TREE '$$t'; valid: $(TREES) both" >&2; exit 2;; esac; done

matrix: ALLOC = all
matrix: run

run: check-args deps
	@mkdir -p $(RESULTS)/$(RUN_ID) && ln -sfn $(RUN_ID) $(RESULTS)/latest
	@matrix/run.sh $(RESULTS)/$(RUN_ID) "$(sel_tree)" "$(sel_alloc)"

check: deps
	@matrix/check.sh

selftest:
	@python3 -m unittest discover -s matrix/tests -t matrix -q

test: deps
	@matrix/test.sh

clean:
	rm -rf $(CACHE)/o $(CACHE)/mod

distclean:
	rm -rf $(CACHE)

# Refused on purpose: the test modules crash kernels and run only in guests.
insmod modprobe load install modules_install:
	@echo "error: '$@' would touch the host kernel; the modules run only in QEMU guests (make run)" >&2
	@exit 2
