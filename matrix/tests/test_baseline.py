# SPDX-License-Identifier: GPL-2.0
"""baseline.py: each vanilla failure must be the listed one, status and
reason (defect 5)."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from typing import List, Tuple

from zsp import axes, baseline


def row(alloc: str, case: str, status: str, detail: str = '') -> dict:
	return {'tree': 'vanilla', 'allocator': alloc, 'suite': 'zero_size_free',
		'case': case, 'status': status, 'detail': detail, 'boot': 1}


class BaselineTest(unittest.TestCase):

	def check(self, listed: str, rows: List[dict]) -> Tuple[int, List[str]]:
		with tempfile.TemporaryDirectory() as run:
			with open(os.path.join(run, 'results.json'), 'w') as f:
				json.dump(rows, f)
			path = os.path.join(run, 'baseline.txt')
			with open(path, 'w') as f:
				f.write(listed)
			out = io.StringIO()
			with contextlib.redirect_stdout(out):
				rc = baseline.main(run, path)
		return rc, out.getvalue().splitlines()

	def test_reason_regex_with_spaces_and_hash(self) -> None:
		listed = ('# comment\n'
			  'slab z2_kmem_cache_free crash unable to handle page fault .*Comm: kunit_try_catch\n'
			  'slab z5_cache_plain crash Oops: 0000 \\[#1\\]\n')
		rows = [row('slab', 'z2_kmem_cache_free', 'crash', 'BUG: unable to handle page fault '
			    'for address: ffffeba240000008 (Comm: kunit_try_catch)'),
			row('slab', 'z5_cache_plain', 'crash', 'Oops: 0000 [#1] SMP')]
		rc, out = self.check(listed, rows)
		self.assertEqual(rc, 0, out)
		self.assertEqual([l[:4] for l in out], ['ok  ', 'ok  '])

	def test_same_status_other_reason_fails(self) -> None:
		listed = 'slab z2_kvfree_rcu_headless crash Comm: kworker\n'
		rows = [row('slab', 'z2_kvfree_rcu_headless', 'crash',
			    'divide error: 0000 [#1] SMP (Comm: kunit_try_catch)')]
		rc, out = self.check(listed, rows)
		self.assertEqual(rc, 1)
		self.assertEqual(out, ["FAIL vanilla/slab z2_kvfree_rcu_headless: crash, but reason "
				       "'divide error: 0000 [#1] SMP (Comm: kunit_try_catch)' does not "
				       "match 'Comm: kworker'"])

	def test_line_without_reason_fails(self) -> None:
		rc, out = self.check('slab z2_kfree crash\n', [row('slab', 'z2_kfree', 'crash', 'x')])
		self.assertEqual(rc, 1)
		self.assertIn('no reason pattern', out[0])

	def test_alternatives_still_parse(self) -> None:
		rc, out = self.check('slob z5_cache_ctor hang|crash no console output\n',
				     [row('slob', 'z5_cache_ctor', 'hang', 'no console output for 30 s')])
		self.assertEqual(rc, 0, out)

	def test_unlisted_failure_and_one_allocator_z7(self) -> None:
		rows = [row('slab', 'z2_kfree', 'error', 'no result from the suite: x'),
			dict(row('slab', 'same_on_all_allocators', 'skip', 'one allocator in this run'),
			     suite='zero_size_identical')]
		rc, out = self.check('slab same_on_all_allocators fail differ\n', rows)
		self.assertEqual(rc, 1)
		self.assertEqual([l.split()[0] for l in out], ['skip', 'FAIL'])
		self.assertIn('z2_kfree: error, not in the baseline', out[1])

	def test_profile_lines(self) -> None:
		"""A plain line holds for every profile; "alloc/profile" for that
		profile alone, in place of the plain one."""
		listed = ('slub z2_kfree crash page fault\n'
			  'slub/distro z2_kfree crash general protection\n'
			  'slub/distro z1_mempool crash poison\n')
		tiny = [row('slub', 'z2_kfree', 'crash', 'page fault'),
			row('slub', 'z1_mempool', 'pass')]
		distro = [dict(r, profile='distro') for r in (
			row('slub', 'z2_kfree', 'crash', 'general protection fault'),
			row('slub', 'z1_mempool', 'crash', 'poison'))]
		rc, out = self.check(listed, tiny + distro)
		self.assertEqual(rc, 0, out)
		self.assertEqual(len(out), 3, out)
		self.assertTrue(all('6.1/distro' in l for l in out[1:]), out)
		# The distro line does not hold for tiny, nor tiny's for distro.
		rc, out = self.check(listed, [dict(tiny[0], detail='general protection')])
		self.assertEqual(rc, 1, out)

	def test_unknown_profile_names_the_line(self) -> None:
		with self.assertRaisesRegex(ValueError, r"baseline.txt:1: unknown profile 'nope'"):
			self.check('slab/nope z2_kfree crash x\n', [])

	def test_bad_regex_names_the_line(self) -> None:
		with self.assertRaisesRegex(ValueError, r'baseline.txt:2: bad reason regex'):
			self.check('\nslab z2_kfree crash (unclosed\n', [])



class SuggestTest(unittest.TestCase):
	"""--suggest: a line per failing row, that the check then accepts."""

	def test_suggested_lines_pass_the_check_on_another_boot(self) -> None:
		seen = [row('slab', 'z5_cache_align', 'crash', 'general protection fault, probably '
			    'for non-canonical address 0x244ea000009f948: 0000 [#1] SMP '
			    '(Comm: kunit_try_catch)'),
			row('slub', 'z5_cache_plain', 'hang', 'watchdog: BUG: soft lockup - CPU#1 '
			    'stuck for 22s! [kunit_try_catch:70]'),
			row('slab', 'z2_kfree', 'crash', 'BUG: kernel NULL pointer dereference, '
			    'address: 0000000000000010 (Comm: kunit_try_catch)'),
			row('slab', 'z1_kmalloc', 'pass')]
		with tempfile.TemporaryDirectory() as run:
			with open(os.path.join(run, 'results.json'), 'w') as f:
				json.dump(seen, f)
			empty = os.path.join(run, 'empty.txt')
			open(empty, 'w').close()
			lines = baseline.suggestions(run, empty)
		self.assertEqual(len(lines), 3)
		# The sentinel's address names the bug: it stays literal.
		self.assertIn('address: 0000000000000010', lines[2])
		again = [row('slab', 'z5_cache_align', 'crash', 'general protection fault, probably '
			     'for non-canonical address 0x13775ff8b3920: 0000 [#1] SMP '
			     '(Comm: kunit_try_catch)'),
			 row('slub', 'z5_cache_plain', 'hang', 'watchdog: BUG: soft lockup - CPU#0 '
			     'stuck for 11s! [kunit_try_catch:93]'),
			 row('slab', 'z2_kfree', 'crash', 'BUG: kernel NULL pointer dereference, '
			     'address: 0000000000000018 (Comm: kunit_try_catch)')]
		want = dict(baseline.parse_line('s', i, line) for i, line in enumerate(lines))
		verdicts = baseline.check(want, again, '')
		bad = [what for v, what in verdicts if v != 'ok']
		self.assertEqual(len(verdicts), 3)
		# Another address is another bug.
		self.assertEqual(len(bad), 1)
		self.assertIn('z2_kfree', bad[0])

	def test_suite_source_path_and_line_left_open(self) -> None:
		"""The suite is built in the cache directory: another machine,
		another path; another edit of the suite, another line."""
		pattern = baseline.reason_pattern(
			'EXPECTATION FAILED at /work/main/build/mod/vanilla-slab-leak/'
			'zero_size_test.c:1259: Expected x <= 16, but')
		self.assertRegex('EXPECTATION FAILED at /tmp/x/build/mod/vanilla-slab-leak/'
				 'zero_size_test.c:1301: Expected x <= 16, but', pattern)
		kernel = baseline.reason_pattern('kernel BUG at mm/slob.c:394!')
		self.assertNotRegex('kernel BUG at mm/slob.c:395!', kernel)

	def test_kernel_path_with_directories_stays(self) -> None:
		"""mm/kasan/report.c is the kernel's: its line names the report."""
		pattern = baseline.reason_pattern('WARNING: CPU: 1 PID: 7 at mm/kasan/report.c:95 x')
		self.assertRegex('WARNING: CPU: 0 PID: 9 at mm/kasan/report.c:95 x', pattern)
		self.assertNotRegex('WARNING: CPU: 0 PID: 9 at mm/kasan/report.c:96 x', pattern)
		self.assertNotRegex('WARNING: CPU: 0 PID: 9 at mm/kfence/report.c:95 x', pattern)

	def test_poison_stays_and_pointers_and_kworkers_open(self) -> None:
		pattern = baseline.reason_pattern(
			'general protection fault, probably for non-canonical address '
			'0x6b6b6b6b6b6b6b6b; Comm: kworker/1:2 RIP: kfree+0x10/0x80 '
			'at 0xffff888004a1c000')
		self.assertRegex('general protection fault, probably for non-canonical address '
				 '0x6b6b6b6b6b6b6b6b; Comm: kworker/0:1H RIP: kfree+0x10/0x80 '
				 'at 0xffff888004b2d000', pattern)
		self.assertNotRegex('general protection fault, probably for non-canonical address '
				    '0x6b6b6b6b6b6b6b6a', pattern)


class LooseTest(unittest.TestCase):
	"""Issue 31 #12: a baseline line that no other failure could break
	is no check. The lines of every profile and of tiny must be able to
	fail; a profile's own lines record observed spreads, each with its
	comment."""

	def expect(self, status: str, reason: str) -> baseline.Expect:
		return baseline.Expect(status.split('|'), reason)

	def test_what_cannot_fail(self) -> None:
		for status, reason in (
				('crash', r'BUG: unable to handle page fault for address: [0-9a-f]+ \(Comm: x\)'),
				('crash', r'(general protection fault).*\[#\d+\]|unable to handle page fault'),
				('fail|crash', r'^$|^crash after z5_cache_poison: .*'),
				('fail', '^differ: ')):
			self.assertNotEqual(baseline.loose(self.expect(status, reason)), '', reason)

	def test_what_can(self) -> None:
		for status, reason in (
				('crash', r'BUG: unable to handle page fault for address: ffffe[a-c][0-9a-f]{10} '
				 r'\(Comm: kunit_try_catch\)'),
				('crash|pass', r'^$|^triple fault: the guest CPU reset itself$'),
				('fail', r'^differ: z5_cache_plain \(status\)$'),
				('hang', r'^(no console output for 20 s|rcu: INFO: rcu_\w+ detected stalls)$')):
			self.assertEqual(baseline.loose(self.expect(status, reason)), '', reason)

	def test_the_committed_lines_can_fail(self) -> None:
		for kernel in axes.KERNELS:
			path = baseline.path_for(kernel)
			with open(path) as f:
				for number, line in enumerate(f, 1):
					line = line.strip()
					if not line or line.startswith('#'):
						continue
					(alloc, case), e = baseline.parse_line(path, number, line)
					if '/' in alloc and not alloc.endswith('/tiny'):
						continue
					self.assertEqual(baseline.loose(e), '', f'{path}:{number}')


if __name__ == '__main__':
	unittest.main()
