# SPDX-License-Identifier: GPL-2.0
"""RUN/results.ktap (zsp/report_ktap.py) read back by the kernel's own
kunit.py parse: a subtest per cell, its cases nested, crash and hang
"not ok" with their diagnostic, n/a a SKIP, error "not ok". kunit.py
comes from the tarball of the default kernel (make deps installs it),
only tools/testing/kunit: the self-tests run before any tree is
unpacked."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List

from zsp import axes, report_ktap
from zsp.results import Row

KUNIT = 'tools/testing/kunit'


def kunit_tool(into: str) -> str:
	"""kunit.py of the default kernel's tarball, unpacked into @into."""
	tarball = axes.KERNELS[axes.DEFAULT_KERNEL].tarball
	p = subprocess.run(['tar', '-xf', tarball, '-C', into, '--strip-components=1',
			    '--wildcards', f'*/{KUNIT}/*'], capture_output=True, text=True)
	if p.returncode:
		raise AssertionError(f'cannot take kunit.py from {tarball}: {p.stderr.strip()}')
	return os.path.join(into, KUNIT, 'kunit.py')


def row(kernel: str, tree: str, alloc: str, case: str, status: str, detail: str = '') -> Row:
	return {'kernel': kernel, 'profile': 'tiny', 'tree': tree, 'allocator': alloc,
		'suite': 'zero_size_free', 'case': case, 'status': status, 'detail': detail}


class KtapTest(unittest.TestCase):

	@classmethod
	def setUpClass(cls) -> None:
		cls.tmp = tempfile.TemporaryDirectory()
		cls.tool = kunit_tool(cls.tmp.name)

	@classmethod
	def tearDownClass(cls) -> None:
		cls.tmp.cleanup()

	def parse(self, rows: List[Row]) -> Dict[str, Dict[str, str]]:
		"""cell -> case -> kunit.py's status, from the written file."""
		run = tempfile.mkdtemp(dir=self.tmp.name)
		path = report_ktap.write(run, rows)
		out = os.path.join(run, 'k.json')
		p = subprocess.run([sys.executable, self.tool, 'parse', f'--json={out}', path],
				   capture_output=True, text=True)
		self.assertNotIn('[ERROR]', p.stdout)
		with open(out) as f:
			top = json.load(f)
		return {g['name']: {t['name']: t['status'] for t in g['test_cases']}
			for g in top['sub_groups']}

	def test_cells_and_cases_come_back(self) -> None:
		rows = [row('6.1', 'vanilla', 'slab', 'a', 'crash', 'BUG: unable to handle [#1]'),
			row('6.1', 'vanilla', 'slab', 'b', 'pass'),
			row('6.1', 'vanilla', 'slab', 'c', 'hang', 'no console output for 20 s'),
			row('7.3', 'patched', 'slub', 'a', 'pass'),
			row('7.3', 'patched', 'slub', 'd', 'n/a', 'a CPU cycle counter'),
			row('7.3', 'patched', 'slub', 'e', 'error', 'no result')]
		got = self.parse(rows)
		self.assertEqual(got, {
			'vanilla-slab': {'zero_size_free.a': 'FAIL', 'zero_size_free.b': 'PASS',
					 'zero_size_free.c': 'FAIL'},
			'patched-slub-7.3': {'zero_size_free.a': 'PASS', 'zero_size_free.d': 'SKIP',
					     'zero_size_free.e': 'FAIL'}})
		self.assertEqual(report_ktap.counts(rows), (2, 6))

	def test_a_crash_keeps_its_oops_line(self) -> None:
		text = report_ktap.render([row('6.1', 'vanilla', 'slub', 'a', 'crash',
						'divide error: 0000 [#1] SMP\nsecond line')])
		self.assertIn('    # crash: divide error: 0000 [#1] SMP second line\n'
			      '    not ok 1 zero_size_free.a\nnot ok 1 vanilla-slub\n', text)


if __name__ == '__main__':
	unittest.main()
