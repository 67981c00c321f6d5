# SPDX-License-Identifier: GPL-2.0
"""make merge: cells run anywhere (CI jobs, other machines, other caches)
as one run.

A cell's directory is self-contained (cell.json names its logs relative
to it), so a merge copies each cell's directory into a new run and lets
the table do the rest: results.json, table.txt, the Z7 "same on all
allocators" row computed across the merged cells, and the exit status of
a run. A cell found in two runs is refused, not picked: which of two
results is the right one is for a person to say.
"""

import os
import shutil
from typing import Dict, List

from . import axes, table
from .errors import MergeError
from .results import dump_json, load_json


def cells_of(run: str) -> List[str]:
	"""The cell directories of a run, by their axes.Cell names."""
	if not os.path.isdir(run):
		raise MergeError(f'{run}: no such run directory; give RUNS= the results/RUN '
				 'directories of make run')
	names = [c.name for c in axes.all_cells() if os.path.isdir(os.path.join(run, c.name))]
	if not names:
		raise MergeError(f'{run} has no cell directories (such as patched-slub); give '
				 'RUNS= the results/RUN directories of make run')
	return names


def sources(runs: List[str]) -> Dict[str, str]:
	"""Cell name -> the run it comes from; each cell from one run only."""
	if not runs:
		raise MergeError('no runs to merge; give RUNS="results/RUN1 results/RUN2 ..."')
	where: Dict[str, str] = {}
	for run in runs:
		for name in cells_of(run):
			if name in where:
				raise MergeError(f'cell {name} is in both {where[name]} and {run}; '
						 'give each cell in one run only')
			where[name] = run
	return where


def rehome_reuse(cell_json: str, run: str, out: str) -> None:
	"""A reused cell names the run that booted it relative to its own run
	directory: keep that pointing at the same place from @out."""
	if not os.path.exists(cell_json):
		return	# a cell that did not build: its error file says so
	cell = load_json(cell_json)
	if cell.get('reused_from'):
		first = os.path.join(os.path.abspath(run), cell['reused_from'])
		cell['reused_from'] = os.path.relpath(first, os.path.abspath(out))
		dump_json(cell_json, cell)


def main(out: str, runs: List[str]) -> int:
	"""Merges @runs into the new run @out; returns the table's status."""
	where = sources(runs)
	if os.path.exists(out):
		raise MergeError(f'{out} exists; merge into a new directory')
	os.makedirs(out)
	for name, run in where.items():
		dst = os.path.join(out, name)
		shutil.copytree(os.path.join(run, name), dst, symlinks=True)
		rehome_reuse(os.path.join(dst, 'cell.json'), run, out)
	with open(os.path.join(out, 'merged-from'), 'w') as f:
		f.write(''.join(f'{name} {os.path.abspath(run)}\n' for name, run in where.items()))
	return table.main(out)
