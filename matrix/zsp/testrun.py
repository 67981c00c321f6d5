# SPDX-License-Identifier: GPL-2.0
"""make test: its stages, each counted from its results, then "N passed, N failed".

make test: every stage CI runs, cheapest first, each counted from the
results themselves (unittest's result object, the check list, the run's
gated rows, the baseline's verdicts, the bisect's answer, the mutants'
rows), then one summary line "N passed, N failed" (", N skipped" when a
test really skipped: a self-test whose tool is missing; a skip in the
patched tree is a failure, table.gate() counts it so).

  selftest  harness unit tests (fake QEMU, console, table): tests/test_*.py
  check     shellcheck, mypy --strict; the series: checkpatch --strict,
            sign-off, the upstream commits it cites, git am to pristine,
            the cover letter current (check.py)
  matrix    vanilla and patched x every allocator of KERNELS (tiny
            profile), and the patched cells of PATCHED_PROFILES (none
            now): every patched row (contract suite, upstream's tests) and
            every cell must pass
  baseline  vanilla still fails exactly where its baseline says
  faults    fault injection on the real commands (tests/faults_*.py), on
            the trees the matrix left in this cache
  bisect    make bisect finds a planted bad patch, and nothing on another
            allocator
  mutants   every plausible wrong fix in matrix/mutants/ is killed by some
            contract case

Every cell runs afresh (--fresh): no result reused from an earlier run.
"""

import argparse
import contextlib
import dataclasses
import os
import shlex
import sys
import tempfile
import time
import unittest
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple
from unittest import mock

from . import axes, baseline, check, disk, commits, mutants, pipeline, settings, table
from .commits import BisectRequest
from .errors import BisectError, KernelError
from .mutants import MutantsRequest
from .pipeline import Limits, RunRequest
from .progress import log
from .settings import Settings

# The fault tests take the run's settings flags from here, as one shell
# line (unittest has no argv for them).
SETTINGS_ENV = 'ZSP_TEST_SETTINGS'
# Patched cells of other profiles that make test runs beside tiny's whole
# matrix, as (profile, allocators) pairs. None: a distro kernel is the
# dearest build there is (ACPI, PCI, NUMA, memcg, tracing: 10.5 min cold
# on 2 cores beside boots, 2026-12-05), and with the three of them a cold
# make test ran past CI's 90 minutes; even one leaves too little margin.
# make matrix PROFILE=distro (or debug, leak, all) runs them.
PATCHED_PROFILES: Tuple[Tuple[str, str], ...] = ()
# The kernels of the matrix stage: 6.1, the oldest series and the only one
# with SLAB and SLOB, and mainline, whose series is the one maintainers
# take first. 6.12's series sits between the two and shares mainline's
# SLUB fixes; make matrix KERNEL=6.12 (or all) runs it.
KERNELS = ('6.1', '7.3')
STAGES = ('selftest', 'check', 'matrix', 'baseline', 'faults', 'bisect', 'mutants')


@dataclass(frozen=True)
class TestRequest:
	"""make test (zsp test): where its runs go, which stages, and what
	the cells of its runs get."""
	results: str
	stages: str = ''	# comma-separated; '': every one of STAGES
	profile: str = axes.DEFAULT_PROFILE
	# PATCHES= was given (RunRequest.own_patches).
	own_patches: bool = False
	limits: Limits = Limits()


@dataclass
class Count:
	passed: int = 0
	failed: int = 0
	skipped: int = 0

	def add(self, other: 'Count') -> None:
		self.passed += other.passed
		self.failed += other.failed
		self.skipped += other.skipped

	def __str__(self) -> str:
		text = f'{self.passed} passed, {self.failed} failed'
		return text + (f', {self.skipped} skipped' if self.skipped else '')


def of(verdicts: List[bool]) -> Count:
	"""A count of pass/fail verdicts; none at all is a failure, never a pass."""
	n = Count(passed=sum(verdicts), failed=len(verdicts) - sum(verdicts))
	if not verdicts:
		n.failed = 1
	return n


def unittests(pattern: str) -> Count:
	"""matrix/tests/PATTERN, in this process, counted by unittest itself.
	A module that does not import is a failed test (unittest's
	_FailedTest), never a missing one."""
	suite = unittest.defaultTestLoader.discover(os.path.join(axes.MATRIX, 'tests'),
						    pattern=pattern, top_level_dir=axes.MATRIX)
	r = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
				    resultclass=CountingResult).run(suite)
	assert isinstance(r, CountingResult)
	return r.count()


class CountingResult(unittest.TextTestResult):
	"""Passes as unittest reports them, one by one: testsRun minus the
	failures would count a test with two failed subTests as -1 passes,
	and a setUpClass error (not in testsRun) as one pass less."""

	def __init__(self, *args: Any, **kw: Any) -> None:
		super().__init__(*args, **kw)
		self.passes = 0

	def addSuccess(self, test: unittest.TestCase) -> None:
		super().addSuccess(test)
		self.passes += 1

	def count(self) -> Count:
		bad = len(self.failures) + len(self.errors) + len(self.unexpectedSuccesses)
		n = Count(passed=self.passes, failed=bad, skipped=len(self.skipped))
		if not self.passes + bad:
			n.failed += 1	# nothing ran: never an empty pass
		return n


class Stages:
	"""The stages of one make test, sharing its settings and run directory."""

	def __init__(self, s: Settings, req: TestRequest) -> None:
		self.s = s
		self.req = req
		stamp = time.strftime('%Y%m%d-%H%M%S')
		self.matrix_run = os.path.join(req.results, f'test-{stamp}-{os.getpid()}')
		self.mutants_run = os.path.join(req.results, f'mutants-{stamp}-{os.getpid()}')

	def selftest(self) -> Count:
		return unittests('test_*.py')

	def check(self) -> Count:
		return of([not why for _, why in check.run(self.s)])

	def matrix(self) -> Count:
		# KERNEL= or PATCHES= (a series of one kernel): its cells alone
		# ('': the settings' kernel).
		own = self.req.own_patches or self.s.kernel != axes.DEFAULT_KERNEL
		kernels = '' if own else ' '.join(KERNELS)
		run_req = RunRequest(run=self.matrix_run, profile=self.req.profile, kernels=kernels,
				     own_patches=self.req.own_patches, limits=self.req.limits)
		pipeline.run(self.s, run_req)
		for profile, allocs in PATCHED_PROFILES:
			pipeline.run(self.s, dataclasses.replace(run_req, trees='patched',
								 profiles=profile, allocs=allocs))
		if not os.path.exists(os.path.join(self.matrix_run, 'results.json')):
			log(f'matrix: no results.json in {self.matrix_run}')
			return Count(failed=1)
		n = table.count(self.matrix_run)
		c = Count(passed=n['pass'] + n['known'], failed=n['fail'], skipped=n['skip'])
		if not c.passed + c.failed + c.skipped:
			log(f'matrix: no gated row in {self.matrix_run}')
			c.failed = 1
		return c

	def baseline(self) -> Count:
		if not os.path.exists(os.path.join(self.matrix_run, 'results.json')):
			return Count()	# the matrix stage failed for it
		lines = baseline.verdicts(self.matrix_run)
		for v, what in lines:
			print(f'{v:<4} {what}', file=sys.stderr)
		return of([v == 'ok' for v, _ in lines if v != 'skip'])

	def faults(self) -> Count:
		# The fault tests work on this run's trees, with its settings.
		with mock.patch.dict(os.environ,
				     {SETTINGS_ENV: shlex.join(settings.argv(self.s))}):
			return unittests('faults_*.py')

	def bisect(self) -> Count:
		"""A copy of the series with commits.BAD_PATCH after the SLUB fix: bisecting
		SLUB from the SLUB fix to the tip must name it; SLAB over the same
		range must find nothing bad. Each step boots the case the bad
		patch breaks alone (CASE=, as a user bisecting one failure would):
		a step's build is the same, its boot a few seconds instead of the
		suite's minute; the whole-suite step is bisect's default, which
		tests/test_commits.py covers with fake cells."""
		with tempfile.TemporaryDirectory() as tmp:
			good = commits.plant_bad(self.s.patches, tmp)
			s = dataclasses.replace(self.s, patches=tmp)
			want = {'slub': f'first bad patch on slub for {commits.BAD_CASE}: '
					f'slub/{commits.BAD_NAME} ',
				'slab': 'nothing in '}
			verdicts = []
			for alloc, start in want.items():
				run = os.path.join(self.req.results,
						   f'bisect-selftest-{alloc}-{os.getpid()}')
				b_req = BisectRequest(run=run, alloc=alloc, good=good,
						      case=commits.BAD_CASE,
						      profile=self.req.profile, limits=self.req.limits)
				try:
					answer = commits.find_first_bad(s, b_req)
				except (BisectError, KernelError) as e:
					answer = f'error: {e}'
				ok = answer.startswith(start) and (alloc != 'slab' or ' is bad on slab' in answer)
				print(f"{'ok  ' if ok else 'FAIL'} bisect {alloc}: {answer}", file=sys.stderr)
				verdicts.append(ok)
		return of(verdicts)

	def mutants(self) -> Count:
		m_req = MutantsRequest(run=self.mutants_run, profile=self.req.profile,
				       limits=self.req.limits)
		return of([ok for ok, _ in mutants.run(self.s, m_req)])


def main(s: Settings, req: TestRequest) -> int:
	s.fresh = True
	stages = Stages(s, req)
	chosen = req.stages.split(',') if req.stages else list(STAGES)
	for name in chosen:
		if name not in STAGES:
			print(f"error: unknown stage '{name}'; valid: {','.join(STAGES)}", file=sys.stderr)
			return 2
	# check applies every kernel's series; the other stages build in
	# the same trees.
	disk.require(s, axes.KERNELS, 'make test')
	total = Count()
	run: Dict[str, Callable[[], Count]] = {n: getattr(stages, n) for n in STAGES}
	for name in chosen:
		log(f'{name}: start')
		try:
			# Stdout is the summary line alone: a stage's own lines go
			# to stderr with the rest of the log.
			with contextlib.redirect_stdout(sys.stderr):
				n = run[name]()
		except Exception as e:	# a stage that breaks is a failure, never absent
			log(f'{name}: {type(e).__name__}: {e}')
			n = Count(failed=1)
		log(f'{name}: {n}')
		total.add(n)
	print(total)
	return 1 if total.failed else 0


def add_arguments(p: argparse.ArgumentParser) -> None:
	p.add_argument('results', help='where the runs of the stages go (RESULTS=)')
	p.add_argument('--stages', default='',
		       help=f"comma-separated stages (default: all: {','.join(STAGES)})")
