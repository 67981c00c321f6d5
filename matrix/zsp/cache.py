# SPDX-License-Identifier: GPL-2.0
"""Results reuse: a cell whose every input hashes the same is not booted again.

What a cell's boots report is a function of the kernel image, the
initramfs (test modules, busybox, /init), the module list, the time
limits, the harness code that reads the console, and the emulator: QEMU's
version and its accelerator (KVM runs a guest many times faster than TCG,
so a case that hangs past a limit under one may pass under the other, and
another QEMU emulates another machine). When all of those hash
as in an earlier run, that run's results are copied instead of booting
again, as "bazel test" reports a cached test result. FRESH=1 (--fresh)
boots regardless; "make test" always does.

Not stored: a cell with a total timeout or a QEMU error (a loaded host or
a broken set-up can cause those) or with an error row. A guest that falls
silent mid-case is stored: that is how vanilla SLOB's endless loops in
cache creation end, the same in every run (qemu.py's SILENCE_S).
"""

import glob
import hashlib
import json
import os
import shutil
from typing import List, Optional

from .results import Outcome, Row, load_json

# Every module of the boot path (runner.py's imports, theirs, ...) but
# axes.py, whose data reaches the key as the guest, kernel and initramfs.
HARNESS = ('qemu.py', 'runner.py', 'verdict.py', 'handlers.py', 'ktap.py', 'console.py',
	   'callsites.py', 'cache.py', 'results.py', 'errors.py')
# Boot outcomes that may come from the host rather than the kernel.
HOST_DEPENDENT = (Outcome.TIMEOUT, Outcome.QEMU_ERROR)


class Stamp:
	"""A step's freshness stamp: a file holding the digest of the inputs
	the step's output was last made from. The one helper behind every
	"skip when nothing changed" of the pipeline."""

	def __init__(self, path: str) -> None:
		self.path = path

	def holds(self, key: str) -> bool:
		try:
			with open(self.path) as f:
				return f.read().strip() == key
		except OSError:
			return False

	def set(self, key: str) -> None:
		with open(self.path, 'w') as f:
			f.write(key + '\n')

	def clear(self) -> None:
		try:
			os.unlink(self.path)
		except FileNotFoundError:
			pass


def digest(parts: List[bytes]) -> str:
	"""sha256 over parts, each one delimited."""
	h = hashlib.sha256()
	for p in parts:
		h.update(len(p).to_bytes(8, 'little') + p)
	return h.hexdigest()


def _feed(h: 'hashlib._Hash', path: str) -> None:
	h.update(path.encode() + b'\0')
	with open(path, 'rb') as f:
		for block in iter(lambda: f.read(1 << 20), b''):
			h.update(block)


def key(kernel: str, initrd: str, kunit_tool: str, modules: str,
	timeout: float, silence: float, guest: object = None, distinct: bool = False,
	only: str = '', *, qemu_version: str, accel: str) -> str:
	"""@qemu_version: qemu.version()'s text; @accel: qemu.accelerator()'s.
	Both keyword-only and required: a caller cannot leave the emulator out."""
	h = hashlib.sha256()
	h.update(f'{modules}\0{timeout}\0{silence}\0{guest!r}\0{distinct}\0{only}\0'
		 f'{qemu_version}\0{accel}\0'.encode())
	for path in (kernel, initrd):
		_feed(h, path)
	here = os.path.dirname(os.path.abspath(__file__))
	harness = [os.path.join(here, n) for n in HARNESS]
	harness += sorted(glob.glob(os.path.join(os.path.dirname(kunit_tool), '*.py')))
	for path in harness:
		_feed(h, path)
	return h.hexdigest()


def storable(cell: Row) -> bool:
	if any(b['outcome'] in HOST_DEPENDENT for b in cell['boots']):
		return False
	return all(c['status'] != 'error' for c in cell['cases'])


def _entry(store: str, k: str) -> str:
	return os.path.join(store, k[:2], k)


def lookup(store: str, k: str) -> Optional[str]:
	"""The dir of an earlier cell with these inputs, if it is still there."""
	try:
		with open(_entry(store, k)) as f:
			earlier = f.read().strip()
	except OSError:
		return None
	return earlier if os.path.exists(os.path.join(earlier, 'cell.json')) else None


def save(store: str, k: str, out: str) -> None:
	path = _entry(store, k)
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path + '.tmp', 'w') as f:
		f.write(os.path.abspath(out) + '\n')
	os.replace(path + '.tmp', path)


def copy(earlier: str, out: str) -> Row:
	"""Copies the earlier cell's boot logs and results into out: every run
	dir stays complete on its own. Returns the cell, marked as reused."""
	copied: List[str] = []
	# A rerun into the same directory already holds the earlier files.
	same = os.path.realpath(earlier) == os.path.realpath(out)
	for path in sorted(glob.glob(os.path.join(earlier, 'boot-*'))):
		if not path.endswith('.cpio') and not same:
			shutil.copy2(path, out)
			copied.append(os.path.basename(path))
	cell = load_json(os.path.join(earlier, 'cell.json'))
	for b in cell['boots']:
		b['log'] = os.path.basename(b['log'])
	# The first run that booted, relative to this run's directory.
	first = earlier
	if cell.get('reused_from'):
		first = os.path.join(os.path.dirname(os.path.abspath(earlier)), cell['reused_from'])
	cell['reused_from'] = os.path.relpath(first, os.path.dirname(os.path.abspath(out)))
	return cell
