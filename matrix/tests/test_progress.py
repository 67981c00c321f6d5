# SPDX-License-Identifier: GPL-2.0
"""The kernel phase's live progress (objects compiled, of the biggest
earlier build's count) and the one line a finished cell prints."""

import contextlib
import io
import os
import tempfile
import time
import unittest

from zsp import kernel, pipeline, progress, results
from zsp.kernel import CellBuild
from zsp.settings import Settings

KBUILD = '''  SYNC    include/config/auto.conf
  CC      init/main.o
  AS      arch/x86/entry/entry_64.o
  CC [M]  lib/test_meminit.o
  LD      vmlinux.o
  AR      init/built-in.a
'''


class ProgressTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.log = os.path.join(self.tmp.name, 'build.log')

	def test_compiled_counts_objects_only(self) -> None:
		with open(self.log, 'w') as f:
			f.write(KBUILD)
		self.assertEqual(progress.compiled(self.log), 3)
		self.assertEqual(progress.compiled(self.log + '.none'), 0)

	def test_lines_while_kbuild_writes(self) -> None:
		err = io.StringIO()
		with contextlib.redirect_stderr(err):
			with progress.BuildProgress('vanilla-slub', self.log, 6, every=0.05):
				for _ in range(2):
					with open(self.log, 'a') as f:
						f.write(KBUILD)
					time.sleep(0.3)
		lines = err.getvalue().splitlines()
		self.assertTrue(any(l.endswith('vanilla-slub: kernel 3/~6 objects (50%), 0s')
				    for l in lines), lines)
		self.assertTrue(any('vanilla-slub: kernel 6/~6 objects (100%)' in l for l in lines))
		# Nothing new, nothing printed: one line per count.
		self.assertEqual(len(lines), len(set(l.split('] ', 1)[1] for l in lines)))

	def test_without_a_total(self) -> None:
		p = progress.BuildProgress('patched-slob', self.log, None)
		self.assertEqual(p.line(12), 'patched-slob: kernel 12 objects, 0s')

	def test_total_is_the_biggest_build_of_either_tree(self) -> None:
		s = Settings(cache=self.tmp.name)
		vanilla, patched = CellBuild(s, 'vanilla', 'slub'), CellBuild(s, 'patched', 'slub')
		# A cache's first build: the count recorded in the repository.
		self.assertEqual(patched.expected_objects(), kernel.recorded_objects('6.1', 'tiny', 'slub'))
		self.assertIsNotNone(patched.expected_objects())
		os.makedirs(vanilla.obj)
		os.makedirs(patched.obj)
		vanilla.record_objects(2000)
		self.assertEqual(patched.expected_objects(), 2000)
		patched.record_objects(12)	# an incremental build keeps the count
		vanilla.record_objects(5)
		self.assertEqual(vanilla.expected_objects(), 2000)
		patched.record_objects(2100)
		self.assertEqual(vanilla.expected_objects(), 2100)


class RecordedObjectsTest(unittest.TestCase):
	def test_exact_then_the_kernel_and_profiles_largest(self) -> None:
		with tempfile.NamedTemporaryFile('w', suffix='.txt') as f:
			f.write('# kernel profile allocator objects\n6.1 tiny slab 700\n'
				'6.1 tiny slub 720\n6.1 debug slub 2000\n')
			f.flush()
			self.assertEqual(kernel.recorded_objects('6.1', 'tiny', 'slab', f.name), 700)
			self.assertEqual(kernel.recorded_objects('6.1', 'tiny', 'slob', f.name), 720)
			self.assertIsNone(kernel.recorded_objects('6.12', 'tiny', 'slub', f.name))
			self.assertIsNone(kernel.recorded_objects('6.1', 'tiny', 'slub', '/nonexistent'))


class CellSummaryTest(unittest.TestCase):
	def test_one_line_per_cell(self) -> None:
		with tempfile.TemporaryDirectory() as out:
			results.dump_json(os.path.join(out, 'cell.json'), {'boots': [{}, {}], 'cases': [
				{'status': 'pass'}, {'status': 'pass'}, {'status': 'crash'}]})
			with open(os.path.join(out, 'timings'), 'w') as f:
				f.write('config 1.5\nkernel 100.25\nboot 20.0\n')
			self.assertEqual(pipeline.summary(out), '2 pass, 1 crash; 2 boots, 122 s')
			with open(os.path.join(out, kernel.CCACHE_FILE), 'w') as f:
				f.write('814 826\n')
			self.assertEqual(pipeline.summary(out),
					 '2 pass, 1 crash; 2 boots, 122 s, ccache 98% of 826')
			os.unlink(os.path.join(out, 'cell.json'))
			self.assertTrue(pipeline.summary(out).startswith('no results'))


class CcacheTest(unittest.TestCase):
	def test_hits_of_one_build(self) -> None:
		before = {'direct_cache_hit': 10, 'preprocessed_cache_hit': 2, 'cache_miss': 5}
		after = {'direct_cache_hit': 810, 'preprocessed_cache_hit': 16, 'cache_miss': 17}
		self.assertEqual(kernel.ccache_hits(before, after), (814, 826))

	def test_stats_are_read_from_ccache(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			stats = kernel.ccache_stats(d)
		self.assertIn('cache_miss', stats)
		self.assertIn('direct_cache_hit', stats)


if __name__ == '__main__':
	unittest.main()
