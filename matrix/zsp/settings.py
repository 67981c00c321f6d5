# SPDX-License-Identifier: GPL-2.0
"""Settings: where things are and how to build, passed down to every step.

Settings: where things are and how to build, the one record every
step of the harness is passed; its flags (add_arguments), the record of
parsed flags (from_args) and the flags again for another zsp process
(argv). Apart from kernel.py, so that a module that only passes it on
need not import the kernel side."""

import argparse
import os
from dataclasses import dataclass, field
from typing import List

from . import axes

# The cache when no --cache (CACHE=) names one.
DEFAULT_CACHE = os.path.join(axes.ROOT, 'build')


def default_jobs() -> int:
	"""make -j: every CPU this process may run on."""
	return len(os.sched_getaffinity(0))


@dataclass
class Settings:
	"""Where things are and how to build: one record, passed down."""
	cache: str
	root: str = axes.ROOT
	kernel: str = axes.DEFAULT_KERNEL
	patches: str = ''
	configs: str = ''
	tarball: str = ''
	fresh: bool = False
	jobs: int = field(default_factory=lambda: default_jobs())
	# Test hook: scratch O= dirs that a real run never touches.
	obj_prefix: str = 'o-'
	busybox: str = '/bin/busybox'

	def __post_init__(self) -> None:
		k = axes.KERNELS[self.kernel]
		self.patches = self.patches or os.path.join(self.root, k.patches)
		self.configs = self.configs or os.path.join(self.root, 'configs')
		self.tarball = self.tarball or k.source_tarball(self.cache)


def add_arguments(p: argparse.ArgumentParser) -> None:
	"""The flags every pipeline command takes (the Makefile's variables in
	brackets): Settings', and the cell's profile. Their defaults are
	Settings' own, the one place."""
	d = Settings(cache=DEFAULT_CACHE)
	p.add_argument('--cache', default=DEFAULT_CACHE,
		       help='the cache directory: trees, O= dirs, ccache, locks (CACHE=; '
		       'default: %(default)s)')
	p.add_argument('--kernel-version', default=d.kernel, choices=list(axes.KERNELS),
		       help='the kernel (zsp/axes.py; default: %(default)s)')
	p.add_argument('--profile', default=axes.DEFAULT_PROFILE, choices=list(axes.PROFILES),
		       help='the config profile (zsp/axes.py; default: %(default)s)')
	p.add_argument('--patches', default='',
		       help="the series' directory (PATCHES=; default: the kernel's)")
	p.add_argument('--configs', default='',
		       help='the config fragments (default: configs/)')
	p.add_argument('--tarball', default='',
		       help="the kernel's source tarball (default: its Debian package's)")
	p.add_argument('--fresh', action='store_true',
		       help='run kbuild and boot even when no input changed (FRESH=1)')
	p.add_argument('--jobs', type=int, default=0,
		       help='make -j for kernel builds (JOBS=; default: every core)')
	p.add_argument('--obj-prefix', default=d.obj_prefix,
		       help='O= dirs are TREE/PREFIXALLOC (self-tests use scratch ones)')
	p.add_argument('--busybox', default=d.busybox, help='the static busybox for /init')


def from_args(args: argparse.Namespace) -> Settings:
	"""The Settings of add_arguments()' flags, as parsed."""
	return Settings(cache=os.path.abspath(args.cache), kernel=args.kernel_version,
			patches=os.path.abspath(args.patches) if args.patches else '',
			configs=os.path.abspath(args.configs) if args.configs else '',
			tarball=args.tarball, fresh=args.fresh, jobs=args.jobs or default_jobs(),
			obj_prefix=args.obj_prefix, busybox=args.busybox)


def argv(s: Settings) -> List[str]:
	"""The flags that give another zsp process the same Settings."""
	out = ['--cache', s.cache, '--kernel-version', s.kernel, '--patches', s.patches,
	       '--configs', s.configs, '--tarball', s.tarball, '--jobs', str(s.jobs),
	       '--obj-prefix', s.obj_prefix, '--busybox', s.busybox]
	return out + (['--fresh'] if s.fresh else [])
