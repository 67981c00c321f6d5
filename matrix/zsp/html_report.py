# SPDX-License-Identifier: GPL-2.0
"""results/RUN/index.html: the run as a static page people read.

Per (kernel, profile), the grid of cases x cells coloured by status;
under it every row that did not pass, with its reason (the oops or splat
line) and a link to the boot log that shows it. A series-check run adds
its table (series.txt), a bench run its own (bench.txt). No script, no
style sheet or font from elsewhere: the page opens the same from the
file system and from a CI job's artifacts. Every link is relative to the
run directory.
"""

import html
import os
from typing import Dict, List, Tuple

from . import axes, bench_plots, table
from .results import Row, load_rows

OUTPUT = 'index.html'
# Status -> (background, text): what the grid and the list are coloured by.
COLOURS: Dict[str, Tuple[str, str]] = {
	'pass': ('#c8e6c9', '#1b5e20'),
	'fail': ('#ffcdd2', '#b71c1c'),
	'crash': ('#e57373', '#ffffff'),
	'hang': ('#ffcc80', '#6d3c00'),
	'error': ('#ce93d8', '#4a148c'),
	'skip': ('#eeeeee', '#424242'),
	'n/a': ('#f5f5f5', '#9e9e9e'),
	'removed': ('#fafafa', '#bdbdbd'),
}
# The text tables other commands leave in a run directory.
EXTRA_TABLES = (('series.txt', 'Every prefix of the series (make series-check)'),
		('bench.txt', 'Benchmarks (make bench)'))


def css_class(status: str) -> str:
	return 'st-' + status.replace('/', '')


def style() -> str:
	rules = [f'.{css_class(s)} {{ background: {bg}; color: {fg}; }}'
		 for s, (bg, fg) in COLOURS.items()]
	return '\n'.join([
		'body { font-family: sans-serif; margin: 1em; }',
		'table { border-collapse: collapse; }',
		'td, th { border: 1px solid #999; padding: 2px 6px; font-size: 12px; }',
		'td a { color: inherit; }',
		'th { background: #e0e0e0; }',
		'td.case { font-family: monospace; }',
		'code { white-space: pre-wrap; }', *rules])


def log_links(cells: List[Row]) -> Dict[Tuple[str, str, str, str, int], str]:
	"""(kernel, profile, tree, allocator, boot) -> the boot's log, relative
	to the run directory."""
	out = {}
	for c in cells:
		name = axes.Cell(c['kernel'], c['tree'], c['profile'], c['allocator']).name
		for b in c.get('boots', []):
			out[(c['kernel'], c['profile'], c['tree'], c['allocator'], b['boot'])] = \
				f"{name}/{b['log']}"
	return out


def link(r: Row, logs: Dict[Tuple[str, str, str, str, int], str]) -> str:
	return logs.get((r['kernel'], r['profile'], r['tree'], r['allocator'], r.get('boot', 0)),
			'')


def grid(rows: List[Row], removed: Tuple[str, ...],
	 logs: Dict[Tuple[str, str, str, str, int], str]) -> str:
	cols, names, by = table.grid(rows, removed)
	out = ['<table class="grid">', '<tr><th>case</th>' +
	       ''.join(f'<th>{t}/{a}</th>' for t, a in cols) + '</tr>']
	for n in names:
		tds = []
		for t, a in cols:
			got = by.get((n, t, a))
			if a in removed:
				tds.append(f'<td class="{css_class("removed")}">removed</td>')
			elif got is None:
				tds.append('<td>-</td>')
			else:
				text = html.escape(got['status'].upper())
				href = link(got, logs)
				if href:
					text = f'<a href="{html.escape(href)}">{text}</a>'
				tds.append(f'<td class="{css_class(got["status"])}" '
					   f'title="{html.escape(got.get("detail", ""))}">{text}</td>')
		out.append(f'<tr><td class="case">{html.escape(n)}</td>{"".join(tds)}</tr>')
	out.append('</table>')
	return '\n'.join(out)


def not_passing(rows: List[Row], logs: Dict[Tuple[str, str, str, str, int], str]) -> str:
	items = []
	for r in rows:
		if r['status'] == 'pass':
			continue
		href = link(r, logs)
		where = f' (<a href="{html.escape(href)}">{html.escape(href)}</a>)' if href else ''
		died = (f'<br>at <code class="where">{html.escape(r["where"])}</code>'
			if r.get('where') else '')
		items.append(f'<li class="{css_class(r["status"])}">{r["tree"]}/{r["allocator"]} '
			     f'{html.escape(r["suite"])}.{html.escape(r["case"])}: '
			     f'{html.escape(r["status"])}: <code>{html.escape(r.get("detail", ""))}'
			     f'</code>{where}{died}</li>')
	return '<ul class="not-passing">\n' + '\n'.join(items) + '\n</ul>' if items else ''


def verdict_section(rows: List[Row]) -> str:
	"""The run's answer, first on the page: table.verdict()'s lines."""
	rc, lines = table.verdict(rows)
	cls = css_class('pass' if rc == 0 else 'fail')
	return (f'<section id="verdict"><h2 class="{cls}">{html.escape(lines[0])}</h2>\n'
		f'<pre>{html.escape(chr(10).join(lines[2:]))}</pre></section>')


def render(run: str) -> str:
	run_id = os.path.basename(os.path.normpath(run))
	parts = [f'<h1>Run {html.escape(run_id)}</h1>']
	if os.path.exists(os.path.join(run, 'results.json')):
		rows = load_rows(os.path.join(run, 'results.json'))
		logs = log_links(table.load_cells(run))
		parts.append(verdict_section(rows))
		for g in dict.fromkeys(table.group(r) for r in rows):
			grows = [r for r in rows if table.group(r) == g]
			removed = tuple(dict(axes.KERNELS[g[0]].removed)) if g[0] in axes.KERNELS else ()
			parts += [f'<h2>{html.escape(table.group_label(g))}</h2>',
				  grid(grows, removed, logs), not_passing(grows, logs)]
	for name, title in EXTRA_TABLES:
		path = os.path.join(run, name)
		if os.path.exists(path):
			with open(path) as f:
				parts += [f'<h2>{html.escape(title)}</h2>',
					  f'<pre>{html.escape(f.read())}</pre>']
	# make bench's plots beside its text (bench_plots.py).
	parts += [f'<figure><img src="{p}" alt="{html.escape(p)}: see bench.txt"></figure>'
		  for p in bench_plots.PLOTS if os.path.exists(os.path.join(run, p))]
	return '\n'.join(['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
			  f'<title>zsp run {html.escape(run_id)}</title>',
			  f'<style>\n{style()}\n</style></head><body>', *parts, '</body></html>', ''])


def main(run: str) -> str:
	"""Writes RUN/index.html; returns its path."""
	path = os.path.join(run, OUTPUT)
	with open(path + '.tmp', 'w') as f:
		f.write(render(run))
	os.replace(path + '.tmp', path)
	return path
