# SPDX-License-Identifier: GPL-2.0
"""make check: its list of checks, run in order, then the count.

make check: the harness is clean (lint.py: shellcheck, mypy --strict),
its documentation current (docs.py: generated blocks, links), and each
series is fit to send (seriesform.py: git am, checkpatch
--strict, sign-off, the commits it cites, the cover letter). One
"ok"/"FAIL" line per check as it ends, then "check: N passed, N failed".
"""

from typing import Callable, List, Tuple

from . import docs, lint, seriesform
from .settings import Settings

# done(name, why): one check's verdict, why '' when it passed.
Done = Callable[[str, str], None]
# A check: the settings, KERNEL= (whose series), and where its verdicts go.
Check = Callable[[Settings, str, Done], None]

# What make check runs, in order: a new check is one more entry.
def documentation(s: Settings, kernels: str, done: Done) -> None:
	name = 'docs: generated blocks current, links resolve'
	try:
		why = docs.check()[1]
	except Exception as e:	# a generator that breaks fails this check, not the others
		why = f'{type(e).__name__}: {e}'
	done(name, why)


CHECKS: Tuple[Check, ...] = (lint.shellcheck, lint.mypy, documentation, seriesform.check)


def main(s: Settings, kernels: str = 'all') -> int:
	results = run(s, kernels)
	failed = sum(1 for _, why in results if why)
	print(f'check: {len(results) - failed} passed, {failed} failed')
	return 1 if failed else 0


def run(s: Settings, kernels: str = 'all') -> List[Tuple[str, str]]:
	"""(check, why it failed or '') per check, each printed as it ends."""
	results: List[Tuple[str, str]] = []

	def done(name: str, why: str) -> None:
		results.append((name, why))
		print(f'FAIL {name}: {why}' if why else f'ok   {name}', flush=True)

	for c in CHECKS:
		c(s, kernels, done)
	return results
