# SPDX-License-Identifier: GPL-2.0
"""Settings: where things are and how to build, the one record every
step of the harness is passed (its flags: pipeline.add_settings). Apart
from kernel.py, so that a module that only passes it on need not import
the kernel side."""

import os
from dataclasses import dataclass, field

from . import axes


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
		self.tarball = self.tarball or k.tarball
