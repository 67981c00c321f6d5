# SPDX-License-Identifier: GPL-2.0
"""A run refuses to start on a disk it would fill: a host fault is an
error before any verdict, never a half-run."""

import os
import tempfile
import unittest
from unittest import mock

from zsp import axes, disk
from zsp.errors import DiskError
from zsp.kernel import Tree
from zsp.settings import Settings


class RequireTest(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.s = Settings(cache=os.path.join(self.tmp.name, 'cache'))

	def test_each_cold_kernel_costs_its_trees(self) -> None:
		kernels = list(axes.KERNELS)
		self.assertEqual(disk.need_gib(self.s, kernels),
				 disk.BUILD_GIB + disk.TREES_GIB * len(kernels))
		src = Tree(self.s, 'vanilla').src
		os.makedirs(src)
		open(os.path.join(src, '.zsp-unpacked'), 'w').close()
		self.assertEqual(disk.need_gib(self.s, kernels),
				 disk.BUILD_GIB + disk.TREES_GIB * (len(kernels) - 1))

	def test_too_little_is_one_line_naming_cache_and_need(self) -> None:
		with mock.patch.object(disk, 'free_gib', return_value=1.0):
			with self.assertRaises(DiskError) as e:
				disk.require(self.s, [axes.DEFAULT_KERNEL], 'make test')
		msg = str(e.exception)
		self.assertNotIn('\n', msg)
		self.assertIn(self.s.cache, msg)
		self.assertIn(f'needs about {disk.BUILD_GIB + disk.TREES_GIB:.1f} GiB', msg)
		self.assertIn('CACHE=', msg)
		with mock.patch.object(disk, 'free_gib', return_value=100.0):
			disk.require(self.s, [axes.DEFAULT_KERNEL], 'make test')

	def test_free_space_of_a_cache_not_made_yet(self) -> None:
		self.assertGreater(disk.free_gib(os.path.join(self.s.cache, 'a', 'b')), 0)


if __name__ == '__main__':
	unittest.main()
