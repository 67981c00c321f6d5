# SPDX-License-Identifier: GPL-2.0
"""zsp/bench.py: the report of make bench from recorded guest results.
Instruction counts (icount) are judged against the targets, wall-clock
figures are shown without one; a cell whose icount boots disagree by
more than SPREAD_MAX fails its spread line; bloat-o-meter's totals are
read as it prints them."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from typing import Dict

from zsp import bench, bench_plots, qemu

BLOAT = '''add/remove: 0/0 grow/shrink: 3/0 up/down: 71/0 (71)
Function                                     old     new   delta
kmem_cache_free_bulk                         812     851     +39
kmem_cache_free                              301     324     +23
kvfree_call_rcu                              640     649      +9
Total: Before=2170036, After=2170107, chg +0.00%
'''


def guest(out: str, clock: str, tree: str, alloc: str, n: int,
	  results: Dict[str, int]) -> None:
	unit = {'kmem_cache_free': 'ps', 'kvfree_rcu': 'ps', 'kmalloc0_kfree': 'ps',
		'kmalloc8_kfree': 'ps'}
	with open(os.path.join(out, f'guest-{clock}-{tree}-{alloc}-{n}.json'), 'w') as f:
		json.dump({'clock': clock, 'tree': tree, 'allocator': alloc, 'outcome': 'poweroff',
			   'results': {k: {'median': v, 'min': v, 'max': v, 'unit': unit.get(k, 'ns')}
				       for k, v in results.items()}}, f)


class BenchReportTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.out = self.tmp.name
		with open(os.path.join(self.out, 'pipeline.json'), 'w') as f:
			json.dump({'cores': '2'}, f)
		with open(os.path.join(self.out, 'bloat-slub.txt'), 'w') as f:
			f.write(BLOAT)

	def report(self) -> dict:  # type: ignore[type-arg]
		with contextlib.redirect_stdout(io.StringIO()) as text:
			self.assertEqual(bench.report(self.out), 0)
		self.text = text.getvalue()
		with open(os.path.join(self.out, 'bench.json')) as f:
			data: dict = json.load(f)  # type: ignore[type-arg]
		return data

	def test_icount_ratios_are_judged_wall_ones_are_not(self) -> None:
		for n in (1, 2):
			guest(self.out, 'icount', 'vanilla', 'slub', n,
			      {'kfree_bulk_1000': 100000, 'kmem_cache_free': 90000})
			guest(self.out, 'icount', 'patched', 'slub', n,
			      {'kfree_bulk_1000': 101000, 'kmem_cache_free': 95000})
			guest(self.out, 'wall', 'vanilla', 'slub', n, {'kfree_bulk_1000': 100})
			guest(self.out, 'wall', 'patched', 'slub', n, {'kfree_bulk_1000': 150})
		r = self.report()['ratios']
		bulk = r['icount slub kfree_bulk_1000 patched_over_vanilla']
		self.assertEqual((bulk['value'], bulk['target']), (1.01, 1.02))
		free = r['icount slub kmem_cache_free patched_over_vanilla']
		self.assertGreater(free['value'], free['target'])
		self.assertIsNone(r['wall slub kfree_bulk_1000 patched_over_vanilla']['target'])
		self.assertRegex(self.text, r'icount slub kmem_cache_free patched_over_vanilla.*OVER TARGET')
		self.assertNotRegex(self.text, r'wall slub.*OVER TARGET')
		self.assertIn('instruction-exact', self.text)
		self.assertIn('noisy', self.text)

	def test_boots_that_disagree_fail_the_spread(self) -> None:
		guest(self.out, 'icount', 'patched', 'slab', 1, {'kfree_bulk_1000': 100000})
		guest(self.out, 'icount', 'patched', 'slab', 2, {'kfree_bulk_1000': 102000})
		guest(self.out, 'icount', 'patched', 'slob', 1, {'kfree_bulk_1000': 100000})
		guest(self.out, 'icount', 'patched', 'slob', 2, {'kfree_bulk_1000': 100500})
		r = self.report()['ratios']
		self.assertEqual(r['icount patched/slab spread over 2 boots']['value'], 0.02)
		self.assertEqual(r['icount patched/slob spread over 2 boots']['value'], 0.005)
		self.assertRegex(self.text, r'patched/slab spread over 2 boots.*OVER TARGET')
		self.assertNotRegex(self.text, r'patched/slob spread.*OVER TARGET')

	def test_bloat_totals(self) -> None:
		self.assertEqual(bench.bloat_totals(self.out)['slub'],
				 {'before': 2170036, 'after': 2170107, 'change_pct': 0.0, 'delta': 71})
		self.report()
		self.assertIn('2170036 -> 2170107 bytes', self.text)

	def test_bisect_ratio_only_when_both_named_the_same_patch(self) -> None:
		answer = 'first bad patch on slub for z2_kfree_bulk_sentinels: slub/0004a'
		pipe = {'bisect_case_s': 100.0, 'bisect_boot_all_s': 400.0,
			'bisect_case_answer': answer, 'bisect_boot_all_answer': answer}
		self.assertEqual(bench.bisect_ratio(pipe)['bisect CASE= over whole-suite boots'],
				 {'value': 0.25, 'target': None})
		for wrong in ('first bad patch on slub: slub/0006', 'error: GOOD=x is not good'):
			self.assertEqual(bench.bisect_ratio({**pipe, 'bisect_boot_all_answer': wrong}), {})
		self.assertEqual(bench.bisect_ratio({**pipe, 'bisect_case_answer': 'error: x',
						     'bisect_boot_all_answer': 'error: x'}), {})


class PlotsTest(unittest.TestCase):
	"""Issue 33: make bench draws its ratios against their targets and
	its runs' stage times as SVGs, the same bytes for the same input,
	and the run's page shows them."""

	PIPE = {'cores': '2', 'warm_rerun_s': 9.5, 'cold_matrix_s': 400.0,
		'warm_rerun_stages_s': {'config': 1.0, 'kernel': 2.5, 'boot': 6.0},
		'slub_patch_edit_rerun_s': 80.0}

	def bench(self, d: str) -> None:
		with open(os.path.join(d, 'pipeline.json'), 'w') as f:
			json.dump(self.PIPE, f)
		for n in (1, 2):
			guest(d, 'icount', 'vanilla', 'slub', n, {'kfree_bulk_1000': 100000})
			guest(d, 'icount', 'patched', 'slub', n, {'kfree_bulk_1000': 100500 + n})
		with contextlib.redirect_stdout(io.StringIO()):
			self.assertEqual(bench.report(d), 0)

	def test_the_same_input_draws_the_same_bytes(self) -> None:
		with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
			self.bench(a)
			self.bench(b)
			for name in bench_plots.PLOTS:
				with open(os.path.join(a, name), 'rb') as fa, \
				     open(os.path.join(b, name), 'rb') as fb:
					svg = fa.read()
					self.assertEqual(svg, fb.read(), name)
				self.assertTrue(svg.startswith(b'<?xml'), name)
			with open(os.path.join(a, 'ratios.svg')) as f:
				self.assertIn('icount slub kfree_bulk_1000 patched_over_vanilla', f.read())
			with open(os.path.join(a, 'stages.svg')) as f:
				text = f.read()
			for label in ('warm', 'edit', 'cold', 'boot'):
				self.assertIn(f'>{label}<', text)
			with open(os.path.join(a, 'index.html')) as f:
				page = f.read()
			self.assertLess(page.index('Benchmarks (make bench)'), page.index('<img src="ratios.svg"'))
			self.assertIn('<img src="stages.svg"', page)

	def test_stacks_take_stages_where_recorded(self) -> None:
		self.assertEqual(bench_plots.stacks(self.PIPE),
				 [('warm', {'config': 1.0, 'kernel': 2.5, 'boot': 6.0}),
				  ('edit', {'total': 80.0}), ('cold', {'total': 400.0})])


class IcountCommandTest(unittest.TestCase):
	def test_icount_is_tcg_with_the_counter(self) -> None:
		cmd = qemu.qemu_command('k', 'i', 'a', icount=True)
		self.assertEqual(cmd[cmd.index('-accel') + 1], 'tcg')
		self.assertEqual(cmd[cmd.index('-icount') + 1], 'shift=0,sleep=off')
		self.assertNotIn('-icount', qemu.qemu_command('k', 'i', 'a'))


if __name__ == '__main__':
	unittest.main()
