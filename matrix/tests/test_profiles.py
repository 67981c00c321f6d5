# SPDX-License-Identifier: GPL-2.0
"""The profile axis: fragments in merge_config.sh's order and its rule
(a later fragment wins), the distro fragments from a Debian config, the
guest a profile asks for (two NUMA nodes), and n/a options shown, never
passed over."""

import dataclasses
import lzma
import os
import tempfile
import unittest
from unittest import mock

from zsp import axes, console, kernel, profiles, qemu, table, verdict
from zsp.kernel import CellBuild
from zsp.settings import Settings
from zsp.errors import BuildError, ConfigError


def write(path: str, text: str) -> str:
	with open(path, 'w') as f:
		f.write(text)
	return path


class FragmentsTest(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.configs = os.path.join(self.tmp.name, 'configs')
		os.makedirs(self.configs)
		for name in ('base', 'distro', 'slab', 'slub', 'slob'):
			write(os.path.join(self.configs, f'{name}.config'), '')
		self.s = Settings(cache=self.tmp.name, configs=self.configs)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def names(self, alloc: str, profile: str) -> list:
		return [os.path.basename(f) for f in CellBuild(self.s, 'vanilla', alloc, profile).fragments]

	def test_profile_allocator_fragment_only_where_it_exists(self) -> None:
		write(os.path.join(self.configs, 'distro-slub.config'), 'CONFIG_SLUB_CPU_PARTIAL=y\n')
		self.assertEqual(self.names('slub', 'distro'),
				 ['base.config', 'distro.config', 'distro-slub.config', 'slub.config'])
		self.assertEqual(self.names('slab', 'distro'),
				 ['base.config', 'distro.config', 'slab.config'])
		self.assertEqual(self.names('slub', 'tiny'), ['base.config', 'slub.config'])

	def test_last_fragment_wins(self) -> None:
		a = write(os.path.join(self.tmp.name, 'a'), 'CONFIG_X=y\n# CONFIG_Y is not set\n')
		b = write(os.path.join(self.tmp.name, 'b'), '# CONFIG_X is not set\nCONFIG_Y=m\n')
		self.assertEqual(kernel.wanted([a, b]),
				 {'CONFIG_X': '# CONFIG_X is not set', 'CONFIG_Y': 'CONFIG_Y=m'})

	def test_verify_checks_the_winning_line(self) -> None:
		write(os.path.join(self.configs, 'base.config'), 'CONFIG_TREE_RCU=y\n')
		write(os.path.join(self.configs, 'distro.config'), '# CONFIG_TREE_RCU is not set\n')
		build = CellBuild(self.s, 'vanilla', 'slab', 'distro')
		config = write(os.path.join(self.tmp.name, '.config'), '# CONFIG_TREE_RCU is not set\n')
		build.verify(config)	# base's line is overridden: no error
		write(config, 'CONFIG_TREE_RCU=y\n')
		with self.assertRaisesRegex(ConfigError, r'CONFIG_TREE_RCU\(unset\)'):
			build.verify(config)

	def test_not_available_line(self) -> None:
		write(os.path.join(self.configs, 'distro-slob.config'),
		      '# header\n# n/a: CONFIG_MEMCG_KMEM=y CONFIG_SLUB_DEBUG=y\n')
		self.assertEqual(CellBuild(self.s, 'vanilla', 'slob', 'distro').not_available,
				 ['CONFIG_MEMCG_KMEM=y', 'CONFIG_SLUB_DEBUG=y'])
		self.assertEqual(CellBuild(self.s, 'vanilla', 'slub', 'distro').not_available, [])


class DistroTest(unittest.TestCase):

	def test_values_from_the_debian_config(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			path = os.path.join(d, 'config.xz')
			with lzma.open(path, 'wt') as f:
				f.write('#\n# Linux/x86 6.1.99 Kernel Configuration\n#\n'
					'CONFIG_MEMCG=y\n# CONFIG_NUMA is not set\n')
			title, values = profiles.debian_values(path, 'linux-config-6.1')
		self.assertEqual(title, 'Linux/x86 6.1.99 Kernel Configuration')
		self.assertEqual(values['CONFIG_MEMCG'], 'CONFIG_MEMCG=y')
		self.assertEqual(values['CONFIG_NUMA'], '# CONFIG_NUMA is not set')
		self.assertEqual(list(values), [f'CONFIG_{o}' for o, _ in profiles.DISTRO])

	def test_missing_debian_config_says_how_to_get_it(self) -> None:
		gone = dataclasses.replace(axes.KERNELS['6.1'], debian_config='/nonexistent/c.xz')
		with tempfile.TemporaryDirectory() as d, \
		     mock.patch.dict(axes.KERNELS, {'6.1': gone}):
			for kernel, how in (('6.1', 'apt-get install linux-config-6.1'),
					    ('7.3', f'make deps CACHE={d} fetches it')):
				s = Settings(cache=d, kernel=kernel)
				with self.assertRaisesRegex(ConfigError, how):
					profiles.distro(s, '')

	def test_an_option_the_kernel_does_not_define_is_listed_not_kept(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			write(os.path.join(d, 'Kconfig'), 'config NUMA\n\tbool\nmenuconfig MEMCG\n')
			os.makedirs(os.path.join(d, 'o-slub'))
			write(os.path.join(d, 'o-slub', 'Kconfig'), 'config MEMCG_KMEM\n')
			self.assertEqual(profiles.kconfig_symbols(d), {'NUMA', 'MEMCG'})
		text = profiles.fragment('T.', 'src', [], {}, [], {}, ('CONFIG_MEMCG_KMEM',))
		path = write(os.path.join(tempfile.mkdtemp(), 'f'), text)
		self.assertEqual(kernel.absent(path), ['CONFIG_MEMCG_KMEM'])
		self.assertEqual(kernel.wanted([path]), {})

	def test_fragment_says_where_each_option_comes_from(self) -> None:
		values = {'CONFIG_MEMCG_KMEM': 'CONFIG_MEMCG_KMEM=y', 'CONFIG_NUMA': 'CONFIG_NUMA=y'}
		why = {'CONFIG_NUMA': 'nodes', 'CONFIG_MEMCG_KMEM': 'charged'}
		text = profiles.fragment('Title.', '/x/config.xz', ['CONFIG_NUMA'], values,
					 ['CONFIG_MEMCG_KMEM'], why)
		self.assertIn('from /x/config.xz', text)
		self.assertIn('# nodes\nCONFIG_NUMA=y\n', text)
		path = write(os.path.join(tempfile.mkdtemp(), 'f'), text)
		self.assertEqual(kernel.not_available(path), ['CONFIG_MEMCG_KMEM=y'])
		self.assertEqual(kernel.wanted([path]), {'CONFIG_NUMA': 'CONFIG_NUMA=y'})

	def test_the_committed_split_is_complete(self) -> None:
		"""Per allocator, the profile's fragment, the allocator's own and
		its n/a line hold every option of the generator's table once: a
		stale split (an option added to the table, not regenerated) shows."""
		for k in axes.KERNELS:
			s = Settings(cache='/nonexistent', kernel=k)
			for profile, table in (('distro', [o for o, _ in profiles.DISTRO]),
					       ('debug', [o.split('=')[0] for o, _ in profiles.DEBUG]),
					       ('leak', [o.split('=')[0] for o, _ in profiles.LEAK])):
				want = sorted(f'CONFIG_{o}' for o in table)
				path = kernel.fragment(s, f'{profile}.config')
				common = list(kernel.wanted([path])) + kernel.absent(path)
				for alloc in axes.allocators(k):
					own_path = CellBuild(s, 'vanilla', alloc, profile).profile_alloc_fragment
					own = list(kernel.wanted([own_path])) if os.path.exists(own_path) else []
					na = [o.split('=')[0] for o in kernel.not_available(own_path)]
					self.assertEqual(sorted(common + own + na), want, (k, profile, alloc))

	def test_a_kernels_own_split_is_one_whole(self) -> None:
		"""7.3 has its own distro.config: 6.1's distro-slub.config must not
		join it, though 7.3 has no distro-slub.config of its own."""
		s = Settings(cache='/nonexistent', kernel='7.3')
		names = [os.path.relpath(f, s.configs)
			 for f in CellBuild(s, 'vanilla', 'slub', 'distro').fragments]
		self.assertEqual(names, ['base.config', '7.3/distro.config', 'slub.config'])

	def test_debug_values(self) -> None:
		self.assertEqual(profiles.line_of('KFENCE_SAMPLE_INTERVAL=1'),
				 'CONFIG_KFENCE_SAMPLE_INTERVAL=1')
		self.assertEqual(profiles.line_of('DEBUG_KMEMLEAK_AUTO_SCAN=n'),
				 '# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set')

	def test_the_committed_fragments_are_the_generators(self) -> None:
		"""configs/{distro,debug,leak}*.config carry the generator's header and
		only its options: a hand edit would be lost at the next refresh."""
		for profile, table in (('distro', [o for o, _ in profiles.DISTRO]),
				       ('debug', [o.split('=')[0] for o, _ in profiles.DEBUG]),
				       ('leak', [o.split('=')[0] for o, _ in profiles.LEAK])):
			known = {f'CONFIG_{o}' for o in table}
			dirs = [os.path.join(axes.ROOT, 'configs', k) for k in axes.KERNELS
				if k != axes.DEFAULT_KERNEL]
			frags = [os.path.join(d, f) for d in [os.path.join(axes.ROOT, 'configs')] + dirs
				 if os.path.isdir(d) for f in os.listdir(d) if f.startswith(profile)]
			self.assertIn(os.path.join(axes.ROOT, 'configs', f'{profile}.config'), frags)
			for path in frags:
				f = os.path.relpath(path, axes.ROOT)
				with open(path) as fh:
					self.assertIn('Generated by "make profile-configs"', fh.read(), f)
				self.assertLessEqual(set(kernel.wanted([path])), known, f)


class GuestTest(unittest.TestCase):

	def test_distro_boots_two_numa_nodes(self) -> None:
		cmd = qemu.qemu_command('k', 'i', 'a', guest=qemu.Guest.of('distro'))
		numa = [cmd[i + 1] for i, a in enumerate(cmd) if a == '-numa']
		self.assertEqual(len(numa), 2)
		self.assertIn('cpus=0', numa[0])
		self.assertIn('cpus=1', numa[1])
		# A socket per node: cache siblings on one node (topology_sane()).
		self.assertEqual(cmd[cmd.index('-smp') + 1], '2,sockets=2,cores=1,threads=1')
		mem = cmd[cmd.index('-m') + 1]
		sizes = [a for a in cmd if a.startswith('memory-backend-ram')]
		self.assertEqual(sum(int(s.split('size=')[1][:-1]) for s in sizes),
				 qemu.parse_mib(mem))

	def test_tiny_boots_as_before(self) -> None:
		cmd = qemu.qemu_command('k', 'i', 'a', guest=qemu.Guest.of('tiny'))
		self.assertNotIn('-numa', cmd)
		self.assertEqual(cmd[cmd.index('-m') + 1], qemu.X86_64.memory)
		self.assertEqual(cmd, qemu.qemu_command('k', 'i', 'a rcutree.rcu_min_cached_objs=0'))

	def test_every_profile_splits_evenly(self) -> None:
		for name in axes.PROFILES:
			qemu.Guest.of(name)	# raises if not

	def test_uneven_split_is_refused(self) -> None:
		odd = axes.Profile(name='odd', fragments=('base.config',), help='', numa_nodes=3)
		with mock.patch.dict(axes.PROFILES, {'odd': odd}), \
		     self.assertRaisesRegex(ValueError, 'profile odd: 3 NUMA nodes do not divide 2'):
			qemu.Guest.of('odd')

	def test_bad_memory_size(self) -> None:
		with self.assertRaisesRegex(ValueError, "'2T' is not like"):
			qemu.parse_mib('2T')


class KmemleakTest(unittest.TestCase):
	"""The debug profile's leak check: the suite's leaks fail the cell,
	the kernel's own are counted, a failed scan is an error."""

	def segment(self, lines: list, rc: int = 0) -> console.Segment:
		return console.Segment(console.KMEMLEAK_MODULE, lines, rc=rc)

	def test_recorded_report(self) -> None:
		with open(os.path.join(os.path.dirname(__file__), 'data', 'kmemleak-report.log')) as f:
			lines = f.read().splitlines()
		found = console.leaks(lines)
		self.assertEqual([(lk.size, lk.comm, lk.suites) for lk in found],
				 [(64, 'kunit_try_catch', True), (32, 'swapper/0', False)])
		status, why = verdict.leak_verdict(self.segment(lines))
		self.assertEqual(status, 'fail')
		self.assertIn('from z2_kfree_bulk_mixed+0x34/0x200 [zero_size_test]', why)
		status, why = verdict.leak_verdict(self.segment(lines[8:]))
		self.assertEqual((status, why), ('pass', 'no object of the suite leaked (1 elsewhere)'))

	def test_the_suites_by_its_module_not_by_its_task(self) -> None:
		"""A leak from the suite's module in any task is the suite's; one
		from upstream's KUnit test in kunit_try_catch is not."""
		def report(comm: str, frame: str) -> list:
			return ['unreferenced object 0xffff888003c4e000 (size 64):',
				f'  comm "{comm}", pid 80, jiffies 4294893000 (age 8.100s)',
				'  backtrace:',
				'    [<ffffffff8113a1a4>] __kmem_cache_alloc_node+0x1a4/0x2a0',
				f'    [<ffffffffa0001234>] {frame}']
		ours = verdict.leak_verdict(self.segment(report(
			'insmod', 'zsp_suite_init+0x34/0x200 [zero_size_test]')))
		self.assertEqual(ours[0], 'fail')
		self.assertIn('from zsp_suite_init+0x34/0x200 [zero_size_test]', ours[1])
		theirs = verdict.leak_verdict(self.segment(report(
			'kunit_try_catch', 'test_clobber_zone+0x20/0x90 [slub_kunit]')))
		self.assertEqual(theirs, ('pass', 'no object of the suite leaked (1 elsewhere)'))

	def test_failed_scan_is_an_error(self) -> None:
		"""A scan that failed on its own (debugfs, the harness): no
		kernel verdict."""
		self.assertEqual(verdict.leak_verdict(self.segment([], rc=1))[0], 'error')

	def test_scan_refused_by_a_kmemleak_that_gave_up_fails(self) -> None:
		"""kmemleak turned itself off during the run (an object that
		overlaps another): the kernel's failure, with the reason, not a
		harness error; a scan that ran is judged whatever came after."""
		why = 'kmemleak: Cannot insert 0xffff888004d2b000 into the object search tree (overlaps existing)'
		self.assertEqual(verdict.leak_verdict(self.segment([], rc=1), why),
				 ('fail', f'kmemleak turned itself off ({why}): no scan after the suite'))
		self.assertEqual(verdict.leak_verdict(self.segment([], rc=0), why)[0], 'pass')

	def test_planned_only_with_kmemleak(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			build = CellBuild(Settings(cache=d), 'vanilla', 'slub', 'debug')
			os.makedirs(build.obj)
			write(os.path.join(build.obj, '.config'), 'CONFIG_DEBUG_KMEMLEAK=y\n')
			self.assertEqual(build.default_modules()[-2:], ['zero_size_test', 'kmemleak'])
			# KASAN's test corrupts the heap on purpose: after the leak scan.
			os.makedirs(os.path.join(build.obj, 'mm', 'kasan'))
			write(os.path.join(build.obj, 'mm', 'kasan', 'kasan_test.ko'), '')
			self.assertEqual(build.default_modules()[-3:],
					 ['zero_size_test', 'kmemleak', 'kasan_test'])
			write(os.path.join(build.obj, '.config'), '# CONFIG_DEBUG_KMEMLEAK is not set\n')
			self.assertNotIn('kmemleak', build.default_modules())


	def test_upstream_tests_where_each_kernel_puts_them(self) -> None:
		"""7.x builds slub_kunit in lib/tests/: it runs from there; a config
		that builds it as a module nowhere known is an error, never a
		module that silently does not run."""
		with tempfile.TemporaryDirectory() as d:
			build = CellBuild(Settings(cache=d, kernel='7.3'), 'patched', 'slub', 'tiny')
			os.makedirs(os.path.join(build.obj, 'lib', 'tests'))
			write(os.path.join(build.obj, '.config'), 'CONFIG_SLUB_KUNIT_TEST=m\n')
			write(os.path.join(build.obj, 'lib', 'tests', 'slub_kunit.ko'), '')
			self.assertEqual(build.default_modules()[:2], ['slub_kunit', 'zero_size_test'])
			os.unlink(os.path.join(build.obj, 'lib', 'tests', 'slub_kunit.ko'))
			with self.assertRaisesRegex(BuildError, 'CONFIG_SLUB_KUNIT_TEST=m built no '
						    'module at lib/slub_kunit.ko or lib/tests/slub_kunit.ko'):
				build.default_modules()
			write(os.path.join(build.obj, '.config'), '# CONFIG_SLUB_KUNIT_TEST is not set\n')
			self.assertEqual(build.default_modules(), ['zero_size_test'])


class NotAvailableTest(unittest.TestCase):

	def test_known_failure_by_the_rows_profile(self) -> None:
		"""A patched upstream test failing as the baseline's line for its
		own profile says is known; a line of another profile does not
		excuse it."""
		with tempfile.TemporaryDirectory() as d:
			path = write(os.path.join(d, 'baseline.txt'),
				     'slob/distro test_meminit fail failures: \\d+ out of 131\n')
			row = {'kernel': '6.1', 'profile': 'distro', 'tree': 'patched',
			       'allocator': 'slob', 'suite': 'test_meminit', 'case': 'test_meminit',
			       'status': 'fail', 'detail': 'failures: 29 out of 131'}
			with mock.patch.object(table.baseline, 'path_for', return_value=path):
				self.assertTrue(table.known_failure(row, [row]))
				tiny = dict(row, profile='tiny')
				self.assertFalse(table.known_failure(tiny, [tiny]))

	def test_shown_under_the_profiles_table(self) -> None:
		cells = [{'kernel': '6.1', 'tree': 'patched', 'profile': 'distro', 'allocator': a,
			  'not_available': na, 'boots': [],
			  'cases': [{'suite': 'zero_size_free', 'case': 'z2_kfree',
				     'status': 'pass', 'detail': '', 'boot': 1}]}
			 for a, na in (('slub', []), ('slob', ['CONFIG_MEMCG_KMEM=y']))]
		text = table.report(table.flatten('r', cells), cells)
		self.assertIn('kernel 6.1, profile distro', text)
		self.assertIn('(n/a on slob: CONFIG_MEMCG_KMEM=y: not in', text)
		self.assertNotIn('n/a on slub', text)


if __name__ == '__main__':
	unittest.main()
