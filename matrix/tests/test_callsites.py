# SPDX-License-Identifier: GPL-2.0
"""callsites: guest-init's report (recorded from a patched distro SLUB
guest, the boot lines added by hand: that guest's boot asked for none)
parsed into the boot's, the kernel's and the suite's callers, and the
table of a run."""

import os
import tempfile
import unittest

from zsp import callsites, console

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')


def report() -> callsites.Counts:
	with open(os.path.join(DATA, 'callsites-report.console')) as f:
		scan = console.scan(f.read().splitlines())
	seg = next(s for s in scan.segments if s.module == callsites.MODULE)
	return callsites.parse(seg.lines)


class ParseTest(unittest.TestCase):
	def test_suite_callers_apart_and_summed_per_function(self) -> None:
		c = report()
		self.assertEqual(c.suite['no_slab_memory [zero_size_test]'], 131072)
		# Two call sites in one function: one row.
		self.assertEqual(c.suite['z1_kcalloc [zero_size_test]'], 2)
		self.assertEqual(c.suite['kvfree_rcu_headless_round [zero_size_test]'], 2)
		# A caller that tail-calls kmalloc() shows as its own caller's.
		self.assertEqual(c.kernel, {'mempool_alloc': 4112, 'mempool_init_node': 12,
					    'kunit_try_run_case': 2})

	def test_kvmalloc_counted_once(self) -> None:
		"""kvmalloc_node() asking __kmalloc_node() is the same request."""
		c = report()
		self.assertNotIn('kvmalloc_node', c.kernel)
		self.assertNotIn('kvmalloc_node', c.boot)
		self.assertEqual(c.suite['z1_kvmalloc [zero_size_test]'], 1)

	def test_boot_and_overrun(self) -> None:
		c = report()
		self.assertEqual(c.boot, {'foo_probe': 3, 'bar_init [bar]': 2})
		self.assertEqual(c.overrun, 5)
		self.assertEqual(c.dropped, 0)

	def test_dropped_makes_a_floor(self) -> None:
		c = callsites.parse(['zsp-callsite hist zsp_kmalloc', 'Dropped: 7'])
		self.assertEqual(c.dropped, 7)
		self.assertIn('hist map was full', callsites.table({'cell': c}))


class RunTest(unittest.TestCase):
	def test_table_of_a_run_from_the_last_boot(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			cell = os.path.join(run, 'patched-slub-distro')
			os.makedirs(cell)
			old = callsites.Counts()
			old.suite['stale [zero_size_test]'] = 1
			callsites.write(os.path.join(cell, 'boot-1.5.callsites.json'), old)
			callsites.write(os.path.join(cell, 'boot-2.5.callsites.json'), report())
			cells = callsites.load_run(run)
			self.assertNotIn('stale [zero_size_test]', cells['patched-slub-distro'].suite)
			text = callsites.table(cells)
			self.assertRegex(text, r'no_slab_memory \[zero_size_test\] +131072')
			self.assertIn('ring buffer overran in patched-slub-distro (5 events)', text)

	def test_empty_run_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			with self.assertRaises(callsites.CallsitesError):
				callsites.main(run)


class ProbeTest(unittest.TestCase):
	def test_command_line_has_no_spaces(self) -> None:
		"""kprobe_event= takes commas for the spaces of kprobe_events."""
		arg = callsites.boot_append().split()[0]
		self.assertTrue(arg.startswith('kprobe_event=p:zsp/'))
		self.assertEqual(arg.count(';'), len(callsites.PROBES) - 1)


if __name__ == '__main__':
	unittest.main()
