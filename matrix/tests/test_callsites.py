# SPDX-License-Identifier: GPL-2.0
"""callsites: guest-init's report (recorded from a patched distro SLUB
guest, the boot lines added by hand: that guest's boot asked for none)
parsed into the boot's, the kernel's and the suite's callers, and the
table of a run."""

import os
import re
import subprocess
import tempfile
import unittest
from typing import Dict, List, Tuple

from zsp import axes, callsites, console, errors, handlers, qemu, settings, verdict

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
	def test_boots_of_a_cell_add_up(self) -> None:
		"""A cell that needed three boots, two of which printed counts:
		their suite calls add up, the boot counts once, and the table
		says the counts are a floor."""
		with tempfile.TemporaryDirectory() as run:
			cell = os.path.join(run, 'patched-slub-distro')
			os.makedirs(cell)
			for n in (1, 2, 3):
				open(os.path.join(cell, f'boot-{n}.log'), 'w').close()
			open(os.path.join(cell, 'boot-1.qemu.log'), 'w').close()
			first = report()
			first.suite.clear()
			first.suite['z1_kmalloc [zero_size_test]'] = 1
			callsites.write(os.path.join(cell, 'boot-2.5.callsites.json'), first)
			callsites.write(os.path.join(cell, 'boot-3.5.callsites.json'), report())
			c = callsites.load_run(run)['patched-slub-distro']
			self.assertEqual(c.suite['z1_kmalloc [zero_size_test]'], 2)
			self.assertEqual(c.boot, report().boot)
			self.assertEqual((c.reported, c.boots), (2, 3))
			text = callsites.table({'patched-slub-distro': c})
			self.assertRegex(text, r'no_slab_memory \[zero_size_test\] +131072')
			self.assertIn('ring buffer overran in patched-slub-distro (5 events)', text)
			self.assertIn('never printed theirs in patched-slub-distro (2 of 3 boots)', text)

	def test_a_probe_with_no_histogram_is_named(self) -> None:
		c = report()
		self.assertEqual(c.missing(), [])
		with open(os.path.join(DATA, 'callsites-report.console')) as f:
			lines = [ln for ln in f.read().splitlines() if 'zsp_kvmalloc' not in ln]
		seg = next(s for s in console.scan(lines).segments
			   if s.module == callsites.MODULE)
		c = callsites.parse(seg.lines)
		self.assertEqual(c.missing(), ['zsp_kvmalloc'])
		self.assertIn('probes missing (rejected at boot?), their callers uncounted in '
			      'cell (zsp_kvmalloc)', callsites.table({'cell': c}))

	def test_empty_run_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			with self.assertRaises(errors.CallsitesError):
				callsites.main(run)


class CellTest(unittest.TestCase):
	def rows(self, lines: List[str]) -> Dict[str, Tuple[str, str]]:
		with tempfile.TemporaryDirectory() as out:
			rows = verdict.Rows()
			r = qemu.BootResult('poweroff', '', 1.0)
			handlers.collect(rows, handlers.Boot(1, os.path.join(out, 'boot-1'), [], r,
							     console.scan(lines), '/nonexistent', False))
			self.assertTrue(os.path.exists(os.path.join(out, 'boot-1.0.callsites.json')))
			return {v.case: (v.status, v.detail) for v in rows.results.values()}

	def test_counts_are_data_not_a_row(self) -> None:
		with open(os.path.join(DATA, 'callsites-report.console')) as f:
			self.assertEqual(self.rows(f.read().splitlines()), {})

	def test_a_rejected_probe_is_an_error_row(self) -> None:
		with open(os.path.join(DATA, 'callsites-report.console')) as f:
			lines = [ln for ln in f.read().splitlines() if 'hist zsp_track_caller' not in ln]
		status, detail = self.rows(lines)['callsites']
		self.assertEqual(status, 'error')
		self.assertIn('no histogram for zsp_track_caller', detail)


class ProbeTest(unittest.TestCase):
	def test_command_line_has_no_spaces(self) -> None:
		"""kprobe_event= takes commas for the spaces of kprobe_events."""
		arg = callsites.boot_append().split()[0]
		self.assertTrue(arg.startswith('kprobe_event=p:zsp/'))
		self.assertEqual(arg.count(';'), len(callsites.PROBES) - 1)

	def test_probes_without_directories_are_defined_again(self) -> None:
		"""guest-init's callsites_renew_lost() against a stand-in tracefs
		where one probe kept its directory: each of the others is turned
		off, removed and defined again verbatim, one at a time (seen in
		the guest: the histograms then count); other groups' probes stay."""
		with open(os.path.join(axes.MATRIX, 'guest-init')) as f:
			fns = re.findall(r'^callsites_renew(?:_lost)?\(\) \{\n.*?^\}\n', f.read(),
					 re.M | re.S)
		self.assertEqual(len(fns), 2)
		# kprobe_events lists a probe with spaces where kprobe_event= has commas.
		defs = {p.event: p.definition().replace(',', ' ') for p in callsites.PROBES}
		kept, *lost = defs
		with tempfile.TemporaryDirectory() as t:
			os.makedirs(os.path.join(t, 'events', 'zsp', kept))
			events = os.path.join(t, 'kprobe_events')
			with open(events, 'w') as f:
				f.write('\n'.join(list(defs.values()) + ['p:kprobes/other vfree']) + '\n')
			# The guest's own shell: busybox-static (make deps).
			script = f'T={t}\n' + ''.join(fns) + 'callsites_renew_lost'
			run = subprocess.run([settings.Settings.busybox, 'sh', '-c', script],
					     check=True, capture_output=True, text=True)
			with open(events) as f:
				written = f.read().splitlines()
			with open(os.path.join(t, 'set_event')) as f:
				self.assertEqual(f.read().split(), [f'!zsp:{e}' for e in lost])
		self.assertEqual(written[len(defs) + 1:],
				 [ln for e in lost for ln in (f'-:zsp/{e}', defs[e])])
		self.assertEqual(run.stderr.count('zsp-callsite renew '), len(lost))
		self.assertNotIn('failed', run.stderr)


if __name__ == '__main__':
	unittest.main()
