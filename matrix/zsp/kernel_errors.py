# SPDX-License-Identifier: GPL-2.0
"""The kernel side's typed errors: str() is the one line a user needs."""


class KernelError(Exception):
	"""A step of the kernel side failed."""


class TreeError(KernelError):
	"""The source tree cannot be made (tarball, git)."""


class SeriesError(KernelError):
	"""The series is malformed or a patch does not apply."""


class ConfigError(KernelError):
	"""The config cannot be merged, or lost an option the fragments ask for."""


class BuildError(KernelError):
	"""The kernel, the test module or the initramfs did not build."""
