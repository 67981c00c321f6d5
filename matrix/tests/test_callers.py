# SPDX-License-Identifier: GPL-2.0
"""matrix/cocci/sentinel-callers.cocci on its fixture: each rule reports
its positive cases and none of its negative ones, so that no rule can
silently match nothing. Skipped without spatch (Debian's coccinelle)."""

import os
import re
import shutil
import subprocess
import unittest
from typing import Dict, List, Tuple

from zsp import axes

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
FIXTURE = os.path.join(DATA, 'sentinel-callers.c')
COCCI = os.path.join(axes.MATRIX, 'cocci', 'sentinel-callers.cocci')

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


@unittest.skipUnless(shutil.which('spatch'), 'needs spatch (apt-get install coccinelle)')
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


if __name__ == '__main__':
	unittest.main()
