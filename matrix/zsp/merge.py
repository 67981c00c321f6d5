# SPDX-License-Identifier: GPL-2.0
"""make merge: cells run anywhere (CI jobs, other machines, other caches)
as one run.

A cell's directory is self-contained (cell.json names its logs relative
to it), so a merge copies each cell's directory into a new run and lets
the table do the rest: results.json, table.txt, the Z7 "same on all
allocators" row computed across the merged cells, and the exit status of
a run. A cell found in two runs is refused, not picked: which of two
results is the right one is for a person to say.

A merged run must read as one run would, so these are refused too, each
with a one-line reason naming the cells:

  - patched cells of one kernel that ran different series (the digest
    their cell.json recorded, results.recorded_series), or of which one
    recorded its series and another did not (a run from before schema 2):
    the table would count two series' verdicts as one;
  - a missing twin. The expected cells are those of a whole matrix run
    of the axes the merged runs hold: within a (kernel, profile), what
    table.py makes one table of, that has cells of both trees, each
    allocator has its vanilla and its patched cell. A group of one tree
    only is what make run TREE=patched (or vanilla) gives, and stays
    mergeable; a group with both trees but a cell missing is a lost job.
    A cell that did not build counts as there: its error row says so.
"""

import os
import shutil
from typing import Dict, List, Optional, Tuple

from . import axes, table
from .errors import MergeError
from .results import Row, dump_json, load_json, recorded_series, short


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


def cell_of(name: str) -> axes.Cell:
	"""The cell of a directory name cells_of() found."""
	return next(c for c in axes.all_cells() if c.name == name)


def check_series(where: Dict[str, str]) -> None:
	"""Every patched cell of a kernel recorded the same series (or, for
	runs before schema 2, all recorded none)."""
	first: Dict[str, Tuple[str, Optional[Row]]] = {}
	for name, run in where.items():
		c = cell_of(name)
		path = os.path.join(run, name, 'cell.json')
		if c.tree != 'patched' or not os.path.isfile(path):
			continue	# vanilla has no series; a cell that did not build, no verdict
		mine = recorded_series(load_json(path))
		if c.kernel not in first:
			first[c.kernel] = (name, mine)
			continue
		other, theirs = first[c.kernel]
		if (mine or {}).get('digest') != (theirs or {}).get('digest'):
			raise MergeError(f'cells {other} ({where[other]}: {short(theirs)}) and {name} '
					 f'({run}: {short(mine)}) of kernel {c.kernel} ran different '
					 'series; merge runs of one series')


def check_twins(where: Dict[str, str]) -> None:
	"""In each (kernel, profile) with cells of both trees, every
	allocator has both (the module docstring says why)."""
	cells = [cell_of(name) for name in where]
	for c in cells:
		trees = {d.tree for d in cells if (d.kernel, d.profile) == (c.kernel, c.profile)}
		twin = axes.Cell(c.kernel, 'vanilla' if c.tree == 'patched' else 'patched',
				 c.profile, c.allocator)
		if len(trees) == 2 and twin.name not in where:
			raise MergeError(f'cell {twin.name} is missing: {c.name} ({where[c.name]}) has '
					 f'no {twin.tree} twin in the merged runs, though kernel '
					 f'{c.kernel}, profile {c.profile} has {twin.tree} cells; '
					 'add the run that holds it')


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
	check_series(where)
	check_twins(where)
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
