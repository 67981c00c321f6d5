# SPDX-License-Identifier: GPL-2.0
"""make check's harness lint: shellcheck and mypy --strict.

make check's lint of the harness itself: what remains in shell passes
shellcheck, and this package mypy --strict. Each check reports through
check.py's done(name, why), why '' when it passed."""

import glob
import os
import re
import subprocess
from typing import Callable, List, Tuple

from . import axes
from .kernel import first_error
from .settings import Settings


def shell_files() -> List[str]:
	return sorted(glob.glob(os.path.join(axes.MATRIX, '*.sh'))) + [
		os.path.join(axes.MATRIX, 'guest-init'), os.path.join(axes.ROOT, '.ci', 'run')]


def run_tool(cmd: List[str]) -> Tuple[bool, str]:
	"""(passed, the one line of why not) of a linter's run; its output is
	shown when it fails."""
	try:
		p = subprocess.run(cmd, capture_output=True, text=True)
	except OSError as e:	# not installed: that check fails, the others still run
		return False, f'{cmd[0]}: {e.strerror}; run make deps'
	out = p.stdout + p.stderr
	if p.returncode == 0:
		return True, ''
	print(out, end='', flush=True)
	m = re.search(r'^.*(error|SC\d+).*$', out, re.M)
	return False, m.group(0) if m else first_error(out)


def shellcheck(s: Settings, kernels: str, done: Callable[[str, str], None]) -> None:
	ok, why = run_tool(['shellcheck'] + shell_files())
	done('shellcheck', why if not ok else '')


def mypy(s: Settings, kernels: str, done: Callable[[str, str], None]) -> None:
	ok, why = run_tool(['mypy', '--strict', '--cache-dir', os.path.join(s.cache, 'mypy'),
			    os.path.join(axes.MATRIX, 'zsp')])
	done('mypy --strict matrix/zsp', why if not ok else '')
