# SPDX-License-Identifier: GPL-2.0
"""Adding a kernel or a profile is adding a record to zsp/axes.py: the
cell's name, its tree, O= dir, module dir and lock, its config fragments,
the allocators it may have, and the table's grouping all follow from it.
docs/extending.md walks through the same steps."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

from zsp import axes, baseline, errors, results, table
from zsp.kernel import CellBuild
from zsp.settings import Settings

K612 = axes.Kernel(name='6.12', package='linux-source-6.12',
		   tarball='/usr/src/linux-source-6.12.tar.xz', allocators=('slub',),
		   patches='patches-6.12', baseline='baseline-vanilla-6.12.txt')
DEBUG = axes.Profile(name='debug', fragments=('base.config', 'debug.config'), help='debug')


class AxesTest(unittest.TestCase):

	def setUp(self) -> None:
		for patch in (mock.patch.dict(axes.KERNELS, {'6.12': K612}),
			      mock.patch.dict(axes.PROFILES, {'debug': DEBUG})):
			patch.start()
			self.addCleanup(patch.stop)
		self.s = Settings(cache='/c', root='/r')

	def test_default_cell_keeps_its_name(self) -> None:
		self.assertEqual(axes.Cell('6.1', 'patched', 'tiny', 'slub').name, 'patched-slub')

	def test_new_axes_get_their_own_names(self) -> None:
		self.assertEqual(axes.Cell('6.12', 'patched', 'tiny', 'slub').name,
				 'patched-slub-6.12')
		self.assertEqual(axes.Cell('6.1', 'vanilla', 'debug', 'slab').name,
				 'vanilla-slab-debug')
		self.assertEqual(axes.Cell('6.12', 'patched', 'debug', 'slub').name,
				 'patched-slub-6.12-debug')

	def test_a_kernel_has_only_its_allocators(self) -> None:
		with self.assertRaisesRegex(ValueError, "unknown allocator 'slab' for kernel 6.12; "
					    'valid: slub'):
			axes.Cell('6.12', 'patched', 'tiny', 'slab')
		cells = [c.name for c in axes.all_cells()]
		self.assertIn('vanilla-slob', cells)
		self.assertNotIn('vanilla-slob-6.12', cells)
		self.assertIn('vanilla-slub-6.12-debug', cells)

	def test_build_layout_follows_the_record(self) -> None:
		old = CellBuild(self.s, 'patched', 'slub')
		new = CellBuild(Settings(cache='/c', root='/r', kernel='6.12'), 'patched', 'slub', 'debug')
		self.assertEqual(old.tree.src, '/c/src/patched')
		self.assertEqual(old.obj, '/c/src/patched/o-slub')
		self.assertEqual(old.tree.lock, 'src-patched')
		self.assertEqual(new.tree.src, '/c/src/6.12/patched')
		self.assertEqual(new.obj, '/c/src/6.12/patched/o-slub-debug')
		self.assertEqual(new.mod, '/c/mod/patched-slub-6.12-debug')
		self.assertEqual(new.tree.lock, 'src-6.12-patched')
		self.assertEqual(new.s.patches, '/r/patches-6.12')
		self.assertEqual(new.s.tarball, '/usr/src/linux-source-6.12.tar.xz')
		self.assertEqual(new.fragments, ['/r/configs/base.config', '/r/configs/debug.config',
						 '/r/configs/slub.config'])

	def test_table_groups_by_kernel_and_profile(self) -> None:
		def cell(name: str, status: str) -> None:
			os.makedirs(os.path.join(run, name))
			results.dump_json(os.path.join(run, name, 'cell.json'), {'boots': [], 'cases': [
				{'suite': 'zero_size_free', 'case': 'z2_kfree', 'status': status,
				 'detail': '', 'boot': 1}]})

		with tempfile.TemporaryDirectory() as run:
			for a in ('slab', 'slub', 'slob'):
				cell(f'patched-{a}', 'pass')
			cell('patched-slub-6.12', 'fail')
			out = io.StringIO()
			with contextlib.redirect_stdout(out):
				self.assertEqual(table.main(run), 1)
			with open(os.path.join(run, 'results.json')) as f:
				rows = json.load(f)['rows']
		z7 = {(r['kernel'], r['allocator']): r['status'] for r in rows
		      if r['case'] == 'same_on_all_allocators'}
		# Each kernel's allocators are compared among themselves only.
		self.assertEqual(z7, {('6.1', 'slab'): 'pass', ('6.1', 'slub'): 'pass',
				      ('6.1', 'slob'): 'pass', ('6.12', 'slub'): 'fail'})
		self.assertIn('kernel 6.12, profile tiny', out.getvalue())
		self.assertIn('(patched = vanilla + patches-6.12/series)', out.getvalue())
		self.assertIn('run ' + os.path.basename(run) + ': verdict: FAIL (exit status 1): 2 patched',
			      out.getvalue())

	def test_removed_allocators_are_columns_that_never_pass(self) -> None:
		rows = [{'kernel': '6.12', 'profile': 'tiny', 'tree': t, 'allocator': 'slub',
			 'suite': 'zero_size_free', 'case': 'z2_kfree', 'status': 'pass',
			 'detail': '', 'boot': 1} for t in ('vanilla', 'patched')]
		with mock.patch.dict(axes.KERNELS, {'6.12': axes.Kernel(
				**{**K612.__dict__, 'removed': (('slab', 'removed in 6.8'),
								('slob', 'removed in 6.4'))})}):
			text = table.report(rows, [])
		head, line = text.splitlines()[1], text.splitlines()[3]
		self.assertEqual(head.split()[1:], ['van/slab', 'van/slub', 'van/slob', 'pat/slab',
						    'pat/slub', 'pat/slob'])
		self.assertEqual(line.split(), ['zero_size_free.z2_kfree', 'REMOVED', 'PASS',
						'REMOVED', 'REMOVED', 'PASS', 'REMOVED'])
		passes = next(x for x in text.splitlines() if x.startswith('pass '))
		self.assertEqual(passes.split(), ['pass', '-', '1', '-', '-', '1', '-'])
		self.assertIn('(slab: removed in 6.8: no cells, never counted)', text)
		self.assertEqual(table.count_rows(rows)['pass'], 1)

	def test_each_kernel_is_checked_against_its_own_baseline(self) -> None:
		def row(kernel: str, case: str, status: str) -> dict:
			return {'kernel': kernel, 'profile': 'tiny', 'tree': 'vanilla',
				'allocator': 'slub', 'suite': 'zero_size_free', 'case': case,
				'status': status, 'detail': 'Oops'}

		with tempfile.TemporaryDirectory() as run:
			results.dump_json(os.path.join(run, 'results.json'), {'rows': [
				row('6.12', 'z2_kfree', 'crash')]})
			listed = os.path.join(run, '6.12.txt')
			with open(listed, 'w') as f:
				f.write('slub z2_kfree crash Oops\n')
			real = baseline.path_for
			with mock.patch.object(baseline, 'path_for',
					       lambda k: listed if k == '6.12' else real(k)):
				out = io.StringIO()
				with contextlib.redirect_stdout(out):
					self.assertEqual(baseline.main(run), 0)
		self.assertEqual(out.getvalue().splitlines(),
				 ['ok   6.12/tiny vanilla/slub z2_kfree: crash as expected, reason matches'])


if __name__ == '__main__':
	unittest.main()


class KernelAxisTest(unittest.TestCase):
	"""KERNEL= of make run, matrix and check: the real records."""

	def test_kernel_names(self) -> None:
		self.assertEqual(axes.kernels(''), [axes.DEFAULT_KERNEL])
		self.assertEqual(axes.kernels('all'), list(axes.KERNELS))
		self.assertIn('6.12', axes.kernels('all'))
		with self.assertRaisesRegex(ValueError, "unknown kernel '6.13'; valid: 6.1 6.12 7.3 all"):
			axes.kernels('6.13')

	def test_each_kernel_runs_its_own_allocators_series_and_tarball(self) -> None:
		from zsp import pipeline
		s = Settings(cache='/c', root='/r')
		plan = pipeline.kernel_plan(s, 'all', ['slab', 'slub', 'slob'], False)
		self.assertEqual([(ks.kernel, allocs) for ks, allocs in plan],
				 [('6.1', ['slab', 'slub', 'slob']), ('6.12', ['slub']), ('7.3', ['slub'])])
		k612 = plan[1][0]
		# A suite the machine's apt sources lack: fetched into the cache.
		self.assertEqual(plan[2][0].tarball,
				 '/c/debs/linux-source-7.3/usr/src/linux-source-7.3.tar.xz')
		self.assertEqual(k612.patches, '/r/patches/6.12')
		self.assertEqual(k612.tarball, '/usr/src/linux-source-6.12.tar.xz')
		self.assertEqual(plan[0][0].patches, '/r/patches')
		# ALLOC=slab runs 6.1 alone: 6.12's SLAB column is "removed".
		self.assertEqual([ks.kernel for ks, _ in pipeline.kernel_plan(s, 'all', ['slab'], False)],
				 ['6.1'])
		with self.assertRaisesRegex(errors.AxisError, 'ALLOC=slob is in none of KERNEL=6.12'):
			pipeline.kernel_plan(s, '6.12', ['slob'], False)
		with self.assertRaisesRegex(errors.AxisError, 'PATCHES= is the series of one kernel'):
			pipeline.kernel_plan(s, 'all', [], True)

	def test_check_covers_every_series_unless_patches_is_given(self) -> None:
		from zsp import seriesform
		s = Settings(cache='/c', root='/r')
		self.assertEqual([(k.kernel, k.patches) for k in seriesform.series_settings(s, 'all')],
				 [('6.1', '/r/patches'), ('6.12', '/r/patches/6.12'),
				  ('7.3', '/r/patches/7.3')])
		self.assertEqual([k.kernel for k in seriesform.series_settings(s, '6.12')], ['6.12'])
		own = Settings(cache='/c', root='/r', patches='/tmp/mine')
		self.assertEqual([k.patches for k in seriesform.series_settings(own, 'all')],
				 ['/tmp/mine'])

	def test_every_kernels_series_directory_exists(self) -> None:
		for k in axes.KERNELS.values():
			self.assertTrue(os.path.isfile(os.path.join(axes.ROOT, k.patches, 'series')),
					f'{k.name}: {k.patches}/series')

	def test_same_on_all_allocators_is_na_on_a_one_allocator_kernel(self) -> None:
		case = {'suite': 'zero_size_free', 'case': 'z2_kfree', 'status': 'pass', 'detail': ''}
		for kernel, want in (('6.12', 'n/a'), ('6.1', 'skip')):
			cells = [{'kernel': kernel, 'profile': 'tiny', 'tree': t, 'allocator': 'slub',
				  'cases': [case]} for t in axes.TREES]
			got = {r['tree']: r['status'] for r in table.z7_rows(cells)}
			# The patched tree is still held to the contract.
			self.assertEqual(got, {'vanilla': want, 'patched': 'pass'}, kernel)
