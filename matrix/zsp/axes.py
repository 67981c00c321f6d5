# SPDX-License-Identifier: GPL-2.0
"""The matrix's axes as data: a cell is (kernel, tree, profile, allocator).

Adding a kernel or a profile is adding a record here (and the files it
names), not editing a code path: docs/extending.md walks through both.
"""

import os
from dataclasses import dataclass
from typing import Dict, List, Tuple

MATRIX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(MATRIX)


@dataclass(frozen=True)
class Kernel:
	"""A kernel the series is carried to, as Debian ships its source."""
	name: str
	package: str		# the Debian package with the source tarball
	tarball: str		# where that package puts it
	allocators: Tuple[str, ...]
	patches: str		# the series' directory, relative to the repository
	baseline: str		# its known vanilla failures, relative to matrix/
	# Debian's own kernel config of that series, the distro profile's
	# source (make profile-configs), and the package that ships it.
	config_package: str = ''
	debian_config: str = ''
	# Allocators of the other kernels that this one no longer has, with
	# the release and commit that removed each: the table shows their
	# columns as removed (no cell, never a pass).
	removed: Tuple[Tuple[str, str], ...] = ()
	# The Debian suite the packages come from when the machine's own apt
	# sources do not name it ('': they do, make deps installs them):
	# matrix/fetch-backports.sh downloads them through a private apt
	# configuration in the cache, and tarball is then under
	# CACHE/debs/PACKAGE/ (source_tarball()).
	suite: str = ''
	# The guest's command line for this kernel, after the harness's own
	# (qemu.APPEND): a parameter whose name moved between releases.
	append: str = ''

	def source_tarball(self, cache: str) -> str:
		"""The tarball, installed or fetched into @cache."""
		return self.fetched(cache, self.package, self.tarball)

	def debian_config_path(self, cache: str) -> str:
		"""Debian's config, installed or fetched into @cache."""
		return self.fetched(cache, self.config_package, self.debian_config)

	def fetched(self, cache: str, package: str, path: str) -> str:
		"""@path of @package: where apt installs it, or for a suite's
		package where fetch-backports.sh unpacked it in @cache."""
		if not self.suite:
			return path
		return os.path.join(cache, 'debs', package, path.lstrip('/'))

	@property
	def packages(self) -> Tuple[str, ...]:
		"""The Debian packages of this kernel: its source and its config."""
		return (self.package, self.config_package) if self.config_package else (self.package,)


@dataclass(frozen=True)
class Profile:
	"""A kind of kernel config the cells are built with, on top of the
	tree's tinyconfig: configs/<fragment> files in order, then
	configs/<profile>-<allocator>.config where the profile has options
	that only some allocators have, then configs/<allocator>.config; and
	the guest it boots in."""
	name: str
	fragments: Tuple[str, ...]
	help: str
	memory: str = ''	# the guest's RAM (QEMU -m; '': qemu.QemuConfig's)
	numa_nodes: int = 1	# split RAM and vCPUs into this many nodes
	append: str = ''	# kernel command line, after the harness's own
	# Boot time and silence limits (qemu.py), and the guest's lockup and
	# stall detectors, times this: measured, in the record's comment.
	slowdown: float = 1.0
	# Count the zero-byte kmalloc-family requests (make callsites): kprobe
	# events on the command line, guest-init's report after the suite.
	callsites: bool = False


# Keep no spare kvfree_rcu() bulk page, so that kfree_rcu() with an
# rcu_head always takes the path that writes the head: the suite's RCU
# cases then test that path, not whichever of the two a page cache
# refill left them. The parameter belongs to the file that batches
# kvfree_rcu(): kernel/rcu/tree.c (rcutree.) up to 6.12, mm/slab_common.c
# (a built-in module_param(): slab_common.) since 6.13.
RCU_NO_SPARE_PAGE = '{module}.rcu_min_cached_objs=0'

# What a kernel after 6.8 lacks of 6.1's allocators, and since when.
SLUB_ONLY = (('slab', 'removed in 6.8 (16a1d968358a)'),
	     ('slob', 'removed in 6.4 (6630e950d532)'))

KERNELS: Dict[str, Kernel] = {k.name: k for k in (
	Kernel(name='6.1', package='linux-source-6.1',
	       tarball='/usr/src/linux-source-6.1.tar.xz',
	       allocators=('slab', 'slub', 'slob'),
	       patches='patches', baseline='baseline-vanilla.txt',
	       config_package='linux-config-6.1',
	       debian_config='/usr/src/linux-config-6.1/config.amd64_none_amd64.xz',
	       append=RCU_NO_SPARE_PAGE.format(module='rcutree')),
	# SLUB only. The zero-sized cache, kvfree_call_rcu(), SLUB's bulk
	# free and the size-0 mempool are broken there as in 6.1: its series
	# is patches/6.12 (cover-letter.txt says what changed on the way).
	Kernel(name='6.12', package='linux-source-6.12',
	       tarball='/usr/src/linux-source-6.12.tar.xz',
	       allocators=('slub',),
	       patches='patches/6.12', baseline='baseline-vanilla-6.12.txt',
	       config_package='linux-config-6.12',
	       debian_config='/usr/src/linux-config-6.12/config.amd64_none_amd64.xz',
	       removed=SLUB_ONLY,
	       append=RCU_NO_SPARE_PAGE.format(module='rcutree')),
	# Mainline as Debian ships it (trixie-backports), SLUB only: the
	# series goes here first, 6.12's and 6.1's are its backports. Its
	# kvfree_rcu() batching moved to mm/slab_common.c, and its module
	# parameters with it.
	Kernel(name='7.3', package='linux-source-7.3',
	       tarball='/usr/src/linux-source-7.3.tar.xz',
	       allocators=('slub',),
	       patches='patches/7.3', baseline='baseline-vanilla-7.3.txt',
	       config_package='linux-config-7.3',
	       debian_config='/usr/src/linux-config-7.3/config.amd64_none_amd64.xz',
	       removed=SLUB_ONLY,
	       suite='trixie-backports',
	       append=RCU_NO_SPARE_PAGE.format(module='slab_common')),
)}
PROFILES: Dict[str, Profile] = {p.name: p for p in (
	Profile(name='tiny', fragments=('base.config',),
		help='tinyconfig + what the suite needs: the smallest kernel that shows the bugs'),
	Profile(name='distro', fragments=('base.config', 'distro.config'),
		help="tiny + Debian's slab-relevant options of that kernel (memcg, NUMA, "
		'preemptible RCU, hardening, kmem tracing), refreshed by make profile-configs',
		memory='512M', numa_nodes=2, callsites=True),
	Profile(name='debug', fragments=('base.config', 'debug.config'),
		help='tiny + KASAN, KFENCE, slab poisoning, init_on_free, lockdep, '
		'DEBUG_VM, debugobjects: the kernels developers debug with',
		# KASAN reports only the first bad access of a boot unless told:
		# the Z6 case's own report would hide every later one.
		# Measured 2026-12-06 (make matrix PROFILE="distro debug leak",
		# patched SLUB, KASAN, beside a kernel build): a boot of 214 s
		# with 11.8 s of silence, and a zero-sized-cache case that the
		# soft-lockup watchdog (10 s at the harness's watchdog_thresh=5)
		# and the 20 s silence limit called hung; tiny's longest are 34 s
		# and 10.3 s. Twice the limits, and the kernel's own lockup and
		# stall detectors with them (qemu.detectors()).
		memory='1G', slowdown=2.0, append='kasan_multi_shot'),
	Profile(name='leak', fragments=('base.config', 'leak.config'),
		help='tiny + kmemleak, scanned after the suite (apart from KASAN: '
		'matrix/zsp/profiles.py LEAK says why)'),
)}
TREES = ('vanilla', 'patched')
DEFAULT_KERNEL = '6.1'
# The kernel whose series is the one for mainline, sent there first;
# every other kernel's series is a stable backport of it, and its
# subjects say so: "[PATCH 6.12.y n/N]" (cover.stable_tag()).
MAINLINE_KERNEL = '7.3'
DEFAULT_PROFILE = 'tiny'


@dataclass(frozen=True)
class Cell:
	"""One cell of the matrix."""
	kernel: str
	tree: str
	profile: str
	allocator: str

	def __post_init__(self) -> None:
		k = KERNELS.get(self.kernel)
		if k is None:
			raise ValueError(f"unknown kernel '{self.kernel}'; valid: {' '.join(KERNELS)}")
		if self.tree not in TREES:
			raise ValueError(f"unknown tree '{self.tree}'; valid: {' '.join(TREES)}")
		if self.profile not in PROFILES:
			raise ValueError(f"unknown profile '{self.profile}'; valid: {' '.join(PROFILES)}")
		if self.allocator not in k.allocators:
			raise ValueError(f"unknown allocator '{self.allocator}' for kernel {self.kernel}; "
					 f"valid: {' '.join(k.allocators)}")

	@property
	def name(self) -> str:
		"""The cell's directory in a run: tree-allocator for the default
		kernel and profile (as every earlier run), longer otherwise."""
		extra = ''
		if self.profile != DEFAULT_PROFILE:
			extra = f'-{self.profile}' + extra
		if self.kernel != DEFAULT_KERNEL:
			extra = f'-{self.kernel}' + extra
		return f'{self.tree}-{self.allocator}{extra}'


def all_cells() -> List[Cell]:
	"""Every cell of every kernel and profile, in table order."""
	return [Cell(k, t, p, a) for k in KERNELS for p in PROFILES for t in TREES
		for a in KERNELS[k].allocators]


def kernels(given: str) -> List[str]:
	"""KERNEL= as a list: '' is the default kernel, 'all' every one."""
	if not given:
		return [DEFAULT_KERNEL]
	if given == 'all':
		return list(KERNELS)
	names = given.split()
	for n in names:
		if n not in KERNELS:
			raise ValueError(f"unknown kernel '{n}'; valid: {' '.join(KERNELS)} all")
	return names


def allocators(kernel: str = DEFAULT_KERNEL) -> Tuple[str, ...]:
	return KERNELS[kernel].allocators


def all_allocators() -> Tuple[str, ...]:
	"""Every allocator of any kernel, in first-seen order."""
	seen: Dict[str, None] = {}
	for k in KERNELS.values():
		for a in k.allocators:
			seen[a] = None
	return tuple(seen)
