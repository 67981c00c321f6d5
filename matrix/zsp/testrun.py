# SPDX-License-Identifier: GPL-2.0
"""make test: every stage CI runs, cheapest first, each counted from the
results themselves (unittest's result object, the check list, the run's
gated rows, the baseline's verdicts, the bisect's answer, the mutants'
rows), then one summary line "N passed, N failed" (", N skipped" when a
test really skipped: a self-test whose tool is missing; a skip in the
patched tree is a failure, table.gate() counts it so).

  selftest  harness unit tests (fake QEMU, console, table): tests/test_*.py
  check     shellcheck, mypy --strict; the series: checkpatch --strict,
            sign-off, git am to pristine (check.py)
  matrix    vanilla and patched x every allocator: every patched row
            (contract suite, upstream's tests) and every cell must pass
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
import dataclasses
import os
import shutil
import sys
import tempfile
import time
import unittest
from dataclasses import dataclass
from typing import Callable, Dict, List

from . import axes, baseline, check, commits, mutants, pipeline, table
from .kernel import Settings
from .kernel_errors import KernelError
from .progress import log

STAGES = ('selftest', 'check', 'matrix', 'baseline', 'faults', 'bisect', 'mutants')
# The planted bad patch of the bisect stage: it breaks kfree_bulk() of
# sentinels on SLUB only, right after the SLUB fix.
BAD_PATCH = os.path.join(axes.MATRIX, 'tests', 'data', 'bad-slub-bulk-free.patch')
BAD_NAME = '0004a-bad-slub-bulk-free.patch'


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
	r = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
	bad = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
	n = Count(passed=r.testsRun - bad - len(r.skipped), failed=bad, skipped=len(r.skipped))
	if r.testsRun == 0:
		n.failed += 1
	return n


class Stages:
	"""The stages of one make test, sharing its settings and run directory."""

	def __init__(self, s: Settings, args: argparse.Namespace) -> None:
		self.s = s
		self.args = args
		stamp = time.strftime('%Y%m%d-%H%M%S')
		self.matrix_run = os.path.join(args.results, f'test-{stamp}-{os.getpid()}')
		self.mutants_run = os.path.join(args.results, f'mutants-{stamp}-{os.getpid()}')

	def selftest(self) -> Count:
		return unittests('test_*.py')

	def check(self) -> Count:
		return of([not why for _, why in check.run(self.s)])

	def matrix(self) -> Count:
		run_args = argparse.Namespace(**{**vars(self.args), 'run': self.matrix_run,
						 'trees': '', 'allocs': ''})
		pipeline.run(self.s, run_args)
		if not os.path.exists(os.path.join(self.matrix_run, 'results.json')):
			log(f'matrix: no results.json in {self.matrix_run}')
			return Count(failed=1)
		n = table.count(self.matrix_run)
		return Count(passed=n['pass'] + n['known'], failed=n['fail'], skipped=n['skip'])

	def baseline(self) -> Count:
		if not os.path.exists(os.path.join(self.matrix_run, 'results.json')):
			return Count()	# the matrix stage failed for it
		lines = baseline.verdicts(self.matrix_run)
		for v, what in lines:
			print(f'{v:<4} {what}', file=sys.stderr)
		return of([v == 'ok' for v, _ in lines if v != 'skip'])

	def faults(self) -> Count:
		# The fault tests work on the cache of this run.
		os.environ['ZSP_TEST_CACHE'] = self.s.cache
		return unittests('faults_*.py')

	def bisect(self) -> Count:
		"""A copy of the series with BAD_PATCH after the SLUB fix: bisecting
		SLUB from the SLUB fix to the tip must name it; SLAB over the same
		range must find nothing bad."""
		with tempfile.TemporaryDirectory() as tmp:
			shutil.copytree(self.s.patches, tmp, dirs_exist_ok=True)
			with open(os.path.join(tmp, 'series')) as f:
				lines = f.read().splitlines()
			good = next(line.strip() for line in lines if line.startswith('slub/'))
			shutil.copyfile(BAD_PATCH, os.path.join(tmp, 'slub', BAD_NAME))
			lines.insert(lines.index(good) + 1, f'slub/{BAD_NAME}')
			with open(os.path.join(tmp, 'series'), 'w') as f:
				f.write('\n'.join(lines) + '\n')
			s = dataclasses.replace(self.s, patches=tmp)
			want = {'slub': f'first bad patch on slub: slub/{BAD_NAME} ',
				'slab': 'nothing in '}
			verdicts = []
			for alloc, start in want.items():
				run = os.path.join(self.args.results,
						   f'bisect-selftest-{alloc}-{os.getpid()}')
				b_args = argparse.Namespace(**{**vars(self.args), 'run': run,
							       'alloc': alloc, 'good': good,
							       'bad': '', 'case': ''})
				try:
					answer = commits.find_first_bad(s, b_args)
				except (commits.BisectError, KernelError) as e:
					answer = f'error: {e}'
				ok = answer.startswith(start) and (alloc != 'slab' or ' is bad on slab' in answer)
				print(f"{'ok  ' if ok else 'FAIL'} bisect {alloc}: {answer}", file=sys.stderr)
				verdicts.append(ok)
		return of(verdicts)

	def mutants(self) -> Count:
		m_args = argparse.Namespace(**{**vars(self.args), 'run': self.mutants_run,
					       'mutants': []})
		return of([ok for ok, _ in mutants.run(self.s, m_args)])


def main(s: Settings, args: argparse.Namespace) -> int:
	s.fresh = True
	stages = Stages(s, args)
	chosen = args.stages.split(',') if args.stages else list(STAGES)
	for name in chosen:
		if name not in STAGES:
			print(f"error: unknown stage '{name}'; valid: {','.join(STAGES)}", file=sys.stderr)
			return 2
	total = Count()
	run: Dict[str, Callable[[], Count]] = {n: getattr(stages, n) for n in STAGES}
	for name in chosen:
		log(f'{name}: start')
		try:
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
