# SPDX-License-Identifier: GPL-2.0
"""zsp: the zero-size contract matrix's harness.

One module per job, as tools/testing/kunit/ splits kunit.py:
  axes          the matrix's axes as data: kernels, trees, profiles, allocators
  settings      Settings: where things are and how to build, passed down
  errors        ZspError, the base of every error a user is shown, and its kinds
  kernel        the kernel side: Tree and CellBuild;
                series, the one parser of patches/series
  pipeline      a cell's steps and boot; a run of cells
  results       statuses, contract rows, the bisect and mutant verdicts
  console       a guest's console -> events per case (oopses, splats, hangs)
  qemu          one QEMU boot, watched (-smp 2, -nic none, timeouts)
  runner        the boots of one cell until every case has a result
  handlers      per-module handlers of a boot's console (KTAP, kmemleak, ...)
  ktap          one module's KTAP, parsed by the tree's kunit.py
  verdict       a boot's console scan and outcome -> the cell's rows (pure)
  cache         results reuse when every input of a cell hashes the same
  table         a run's cells -> results.json, table.txt, the Z7 row
  baseline      the vanilla column against matrix/baseline-vanilla.txt
  commits       cells on commits of the patched tree: bisect, series-check
  series_table  series-check's prefix x allocator table
  mutants       make mutants: each wrong fix in a copy of the patched tree
  check         make check: its list of checks, run in order, then the count
  lint          make check's harness lint: shellcheck, mypy --strict
  seriesform    make check's series checks: git am, checkpatch, sign-off,
                the commits cited, the cover letter current
  profiles      make profile-configs: the distro, debug and leak fragments
  callsites     make callsites: who asks for zero bytes (kprobes, report, table)
  testrun       make test: its stages, counted from their results
  bench         make bench's measurements and report
  lock          the cache's locks, never inherited by children
  progress      "[  Ns] ..." progress lines
  __main__      the command line: python3 -m zsp SUBCOMMAND --help; the
                plumbing apart, under python3 -m zsp internal
"""
