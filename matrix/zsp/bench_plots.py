# SPDX-License-Identifier: GPL-2.0
"""make bench's plots: RUN/ratios.svg and RUN/stages.svg from bench.json.

bench.txt gives every figure; two read better drawn. ratios.svg: each
instruction-count ratio with a target (bench.TARGETS), as a share of its
target (1 is the target), with the boots' spread where the report has
one; the wall-clock ratios, noisy and without a target, are left to the
text. stages.svg: the wall seconds
of the warm, FRESH=1, edit and cold runs of the matrix, stacked by stage
(pipeline.json's *_stages_s; a run without stages is one bar).

Drawn with Debian's python3-matplotlib (Agg), reproducibly: text stays
text (svg.fonttype none), no date in the metadata and a fixed salt for
the SVG's ids, so one bench.json always gives the same bytes. Where the
interpreter running the harness has no matplotlib (a pyenv Python beside
Debian's), the plots are drawn by Debian's own python3, for which the
package installs it.
"""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Tuple

from .errors import PlotError

PLOTS = ('ratios.svg', 'stages.svg')
DEBIAN_PYTHON = '/usr/bin/python3'
# pipeline.json's run totals and their stages, in the order drawn.
RUNS = (('warm', 'warm_rerun_s', 'warm_rerun_stages_s'),
	('FRESH=1', 'warm_fresh_rerun_s', 'warm_fresh_rerun_stages_s'),
	('edit', 'slub_patch_edit_rerun_s', 'slub_patch_edit_stages_s'),
	('cold', 'cold_matrix_s', 'cold_matrix_stages_s'))


def targeted(ratios: Dict[str, Dict[str, Any]]) -> List[Tuple[str, float, float, float]]:
	"""(name, value, target, spread) of each instruction-count ratio
	with a non-zero target (the seconds are stages.svg's)."""
	return [(k, float(v['value']), float(v['target']), float(v.get('spread', 0.0)))
		for k, v in ratios.items()
		if k.startswith('icount ') and v.get('target')]


def stacks(pipe: Dict[str, Any]) -> List[Tuple[str, Dict[str, float]]]:
	"""(run, stage -> seconds) of each run the pipeline record has."""
	out = []
	for label, total, stages in RUNS:
		if isinstance(pipe.get(stages), dict) and pipe[stages]:
			out.append((label, {k: float(v) for k, v in pipe[stages].items()}))
		elif isinstance(pipe.get(total), (int, float)):
			out.append((label, {'total': float(pipe[total])}))
	return out


def draw(out: str) -> List[str]:
	"""Writes the plots of @out/bench.json; their paths."""
	mpl = importlib.import_module('matplotlib')
	mpl.use('Agg')
	mpl.rcParams.update({'svg.hashsalt': 'zsp-bench', 'svg.fonttype': 'none',
			     'font.size': 9})
	plt = importlib.import_module('matplotlib.pyplot')
	with open(os.path.join(out, 'bench.json')) as f:
		data = json.load(f)
	written = []
	rows = targeted(data.get('ratios', {}))
	fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.4))
	y = list(range(len(rows)))
	# Each against its own target: 1 is the target, left of it is within.
	x = [v / t for _, v, t, _ in rows]
	ax.barh(y, x, xerr=[a * sp for a, (_, _, _, sp) in zip(x, rows)], capsize=3,
		color=['#c44e52' if a > 1 else '#4c72b0' for a in x])
	ax.axvline(1.0, color='black', linestyle='--', linewidth=1)
	for i, (_, v, t, _) in enumerate(rows):
		ax.annotate(f'{v:g} (target {t:g})', (x[i], i), xytext=(4, 0),
			    textcoords='offset points', va='center')
	ax.set_yticks(y, [r[0] for r in rows])
	ax.invert_yaxis()
	ax.set_xlim(0, max(x + [1.0]) * 1.6)
	ax.set_xlabel('measured / target (instructions; dashed: the target; '
		      'error bar: the boots\' spread)')
	written.append(save(plt, fig, os.path.join(out, PLOTS[0])))
	runs = stacks(data.get('pipeline', {}))
	fig, ax = plt.subplots(figsize=(8, 3.5))
	names = list(dict.fromkeys(n for _, st in runs for n in st))
	left = [0.0] * len(runs)
	for name in names:
		widths = [st.get(name, 0.0) for _, st in runs]
		ax.barh(range(len(runs)), widths, left=left, label=name)
		left = [a + b for a, b in zip(left, widths)]
	ax.set_yticks(range(len(runs)), [r for r, _ in runs])
	ax.invert_yaxis()
	ax.set_xlabel('wall seconds')
	if names:
		ax.legend(loc='upper left', bbox_to_anchor=(1.01, 1.0), title='stage')
	written.append(save(plt, fig, os.path.join(out, PLOTS[1])))
	return written


def save(plt: Any, fig: Any, path: str) -> str:
	fig.tight_layout()
	fig.savefig(path, format='svg', metadata={'Date': None})
	plt.close(fig)
	return path


def main(out: str) -> List[str]:
	"""draw() here, or in Debian's python3 when this one lacks matplotlib."""
	if importlib.util.find_spec('matplotlib') is None:
		if os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON):
			raise PlotError('python3-matplotlib is missing; make deps installs it') from None
		env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(__file__)))
		p = subprocess.run([DEBIAN_PYTHON, '-m', 'zsp.bench_plots', out], env=env,
				   capture_output=True, text=True)
		if p.returncode:
			raise PlotError(f'{DEBIAN_PYTHON} could not draw the plots: '
					f'{(p.stderr.strip().splitlines() or ["no output"])[-1]}; '
					'make deps installs python3-matplotlib') from None
		return p.stdout.split()
	return draw(out)


if __name__ == '__main__':
	print('\n'.join(draw(sys.argv[1])))
