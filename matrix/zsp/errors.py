# SPDX-License-Identifier: GPL-2.0
"""ZspError, the base of every error a user is shown, and its kinds.

The harness's typed errors, one base: the command line (__main__)
catches ZspError once and prints str(e) as its one "error: ..." line,
exit 1. So str() of each is the one line a user needs, what to do
included; anything else that escapes is a bug, with its traceback."""


class ZspError(Exception):
	"""A failure the user can act on; str() says how."""


# -- the kernel side (kernel.py, series.py) ------------------------------------

class KernelError(ZspError):
	"""A step of the kernel side failed."""


class TreeError(KernelError):
	"""The source tree cannot be made (tarball, git)."""


class SeriesError(KernelError):
	"""The series is malformed or a patch does not apply."""


class ConfigError(KernelError):
	"""The config cannot be merged, or lost an option the fragments ask for."""


class BuildError(KernelError):
	"""The kernel, the test module or the initramfs did not build."""


# -- the rest, by module -------------------------------------------------------

class AxisError(ZspError):
	"""A tree or allocator that is not on the matrix (pipeline.py)."""


class LockBusy(ZspError):
	"""Another run holds the lock (lock.py)."""


class SchemaError(ZspError):
	"""A results file newer than this harness (results.py)."""


class BisectError(ZspError):
	"""Bad input to make bisect, or ends that do not bracket a change (commits.py)."""


class MutantError(ZspError):
	"""An unknown mutant, or one that no longer applies to the series (mutants.py)."""


class CallsitesError(ZspError):
	"""A run with no counts to show (callsites.py)."""


class CoverError(ZspError):
	"""The template or the run cannot make a cover letter (cover.py)."""


class MergeError(ZspError):
	"""Runs that cannot be merged, with what to do (merge.py)."""


class ExportError(ZspError):
	"""The run cannot be exported; str() says what to do (export.py)."""


class DiskError(ZspError):
	"""Too little free space in the cache for the run asked for (disk.py)."""


class PlotError(ZspError):
	"""No matplotlib to draw make bench's plots with (bench_plots.py)."""
