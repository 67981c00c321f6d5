# SPDX-License-Identifier: GPL-2.0
"""make callers: matrix/cocci/sentinel-callers.cocci on its fixture (each
rule reports its positive cases and none of its negative ones, so that no
rule can silently match nothing), and matrix/callers.sh on a fake tree in
a scratch cache. Skipped without spatch (make deps installs coccinelle)."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest
from typing import Dict, List, Tuple

from zsp import axes
from zsp.kernel import Tree
from zsp.settings import Settings

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
FIXTURE = os.path.join(DATA, 'sentinel-callers.c')
COCCI = os.path.join(axes.MATRIX, 'cocci', 'sentinel-callers.cocci')
SCRIPT = os.path.join(axes.MATRIX, 'callers.sh')

# rule -> (the API its lines name, the fixture's functions it must report,
# those it must not).
RULES: Dict[str, Tuple[Tuple[str, ...], List[str], List[str]]] = {
	'rcu': (('kfree_rcu', 'kvfree_rcu', 'kvfree_rcu_mightsleep', 'kfree_rcu_mightsleep'),
		['pos_rcu_two_arg', 'pos_rcu_mightsleep', 'pos_rcu_objs'],
		['neg_rcu_constant', 'neg_rcu_never_zero', 'neg_rcu_reassigned', 'neg_rcu_product']),
	'single': (('kmem_cache_free',), ['pos_single'], ['neg_single']),
	'kbulk': (('kfree_bulk',), ['pos_kbulk'], ['neg_kbulk']),
	'cbulk': (('kmem_cache_free_bulk',), ['pos_cbulk'], ['neg_cbulk']),
	'pool': (('mempool_create_kmalloc_pool',), ['pos_pool', 'pos_pool_one_path'], ['neg_pool']),
	'ipool': (('mempool_init_kmalloc_pool',), ['pos_ipool'], ['neg_ipool', 'neg_ipool_local']),
	'cpool': (('mempool_create_node', 'mempool_create'), ['pos_cpool'],
		  ['neg_cpool', 'neg_cpool_local']),
	'npool': (('mempool_init', 'mempool_init_node'), ['pos_npool'], ['neg_npool']),
	'defs': (('kvfree_rcu_mightsleep', 'mempool_create_kmalloc_pool'),
		 ['pos_rcu_local', 'pos_pool_one_path'],
		 ['neg_ipool_local', 'neg_cpool_local']),
}
LINE = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+): (?P<api>\w+): .* in (?P<fn>\w+)\(\), size ')


def spatch(*args: str, cwd: str) -> str:
	p = subprocess.run(['spatch', '--very-quiet', '--no-includes', '-D', 'report',
			    '--sp-file', COCCI] + list(args), cwd=cwd, capture_output=True, text=True)
	if p.returncode:
		raise AssertionError(f'spatch failed: {p.stderr}')
	return p.stdout


@unittest.skipUnless(shutil.which('spatch'), 'needs spatch: make deps (apt-get install coccinelle)')
class RulesTest(unittest.TestCase):
	out: List[str] = []

	@classmethod
	def setUpClass(cls) -> None:
		cls.out = spatch(os.path.basename(FIXTURE), cwd=DATA).splitlines()

	def reported(self) -> Dict[str, List[str]]:
		"""function -> the APIs of its lines."""
		got: Dict[str, List[str]] = {}
		for line in self.out:
			m = LINE.match(line)
			self.assertIsNotNone(m, line)
			assert m
			got.setdefault(m['fn'], []).append(m['api'])
		return got

	def test_each_rule_reports_its_positives_only(self) -> None:
		got = self.reported()
		for rule, (apis, pos, neg) in RULES.items():
			for fn in pos:
				with self.subTest(rule=rule, case=fn):
					self.assertIn(fn, got, f'{rule} missed {fn}')
					self.assertTrue(set(got[fn]) & set(apis), got[fn])
			for fn in neg:
				with self.subTest(rule=rule, case=fn):
					self.assertNotIn(fn, got, f'{rule} reported {fn}')

	def test_every_fixture_case_is_checked(self) -> None:
		"""A case added to the fixture and not to RULES would check nothing."""
		with open(FIXTURE) as f:
			cases = set(re.findall(r'^\w[\w *]*?\b((?:pos|neg)_\w+)\(', f.read(), re.M))
		named = {fn for _, pos, neg in RULES.values() for fn in pos + neg}
		self.assertEqual(cases, named)

	def test_a_size_in_a_variable_shows_what_was_assigned(self) -> None:
		line = next(x for x in self.out if 'pos_rcu_local' in x)
		self.assertIn("size 'sz' = 'n * 4' not constant", line)
		line = next(x for x in self.out if 'pos_pool_one_path' in x)
		self.assertIn("size 'size' = '16' | 'len' not constant", line)

	def test_the_pool_data_cast_is_no_part_of_the_size(self) -> None:
		line = next(x for x in self.out if 'pos_cpool' in x)
		self.assertIn("size 'alloc_size' not constant", line)


@unittest.skipUnless(shutil.which('spatch'), 'needs spatch: make deps (apt-get install coccinelle)')
class ScriptTest(unittest.TestCase):
	"""callers.sh on a fake mainline vanilla tree: the fixture as a driver,
	again under tools/ (not the kernel's) and as mm/mempool.c (the pool
	code itself), neither of which counts."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.cache = os.path.join(self.tmp.name, 'cache')
		self.tree = Tree(Settings(cache=self.cache, kernel=axes.MAINLINE_KERNEL), 'vanilla').src
		for d in ('drivers/x', 'tools', 'mm'):
			os.makedirs(os.path.join(self.tree, d))
		for dst in ('drivers/x/x.c', 'tools/x.c', 'mm/mempool.c'):
			shutil.copy(FIXTURE, os.path.join(self.tree, dst))
		open(os.path.join(self.tree, '.zsp-unpacked'), 'w').close()
		with open(os.path.join(self.tree, 'Makefile'), 'w') as f:
			f.write('VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\nEXTRAVERSION =\n')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def run_script(self, out: str) -> subprocess.CompletedProcess[str]:
		return subprocess.run([SCRIPT, out, '--cache', self.cache],
				      capture_output=True, text=True)

	def test_findings_and_summary(self) -> None:
		out = os.path.join(self.tmp.name, 'results', 'callers-1')
		p = self.run_script(out)
		self.assertEqual(p.returncode, 0, p.stderr)
		with open(os.path.join(out, 'callers.txt')) as f:
			lines = f.read().splitlines()
		self.assertTrue(lines)
		self.assertTrue(all(x.startswith('drivers/x/x.c:') for x in lines), lines)
		self.assertEqual(lines, sorted(lines, key=lambda x: int(x.split(':')[1])))
		with open(os.path.join(out, 'files.txt')) as f:
			self.assertEqual(f.read(), 'drivers/x/x.c\n')
		with open(os.path.join(out, 'summary.txt')) as f:
			summary = f.read()
		self.assertIn('Linux 7.3.4', summary)
		rows = {r.split()[0]: r.split()[1:] for r in summary.splitlines()
			if re.match(r'^\S+ +\d+ +\d+ +\d+$', r)}
		# calls, files, call sites found: the fixture's, whose calls count
		# twice (mm/mempool.c's are calls too), not those under tools/;
		# spatch reads the driver alone, and pools made with
		# mempool_kmalloc are counted outside the pool code.
		self.assertEqual(rows['kmem_cache_free'], ['4', '2', '1'])
		self.assertEqual(rows['kvfree_rcu_mightsleep'], ['10', '2', '2'])
		self.assertEqual(rows['mempool_create_kmalloc_pool'], ['6', '2', '2'])
		self.assertEqual(rows['mempool_create/init*(mempool_kmalloc)'], ['5', '1', '2'])

	def test_never_overwrites(self) -> None:
		out = os.path.join(self.tmp.name, 'callers-1')
		os.makedirs(out)
		p = self.run_script(out)
		self.assertEqual(p.returncode, 1)
		self.assertIn('never overwritten', p.stderr)
		self.assertEqual(os.listdir(out), [])


if __name__ == '__main__':
	unittest.main()
