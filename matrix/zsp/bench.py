# SPDX-License-Identifier: GPL-2.0
"""bench.py: the numbers of "make bench".

  bench.py guest OUT TREE ALLOC OBJ   boot OBJ's kernel with zero_size_bench
                                      and write OUT/guest-TREE-ALLOC.json
  bench.py peer OUT ALLOC             OUT/peer.json from peer.sh's runs
  bench.py stages RUN                 seconds per stage, summed over cells
  bench.py report OUT                 bench.json and bench.txt from the
                                      pipeline, peer and guest results

Guests run under TCG, so absolute times mean little; the report gives
ratios measured in one run: kmalloc(0)+kfree over kmalloc(8)+kfree per
allocator, and kfree_bulk() patched over vanilla.
"""

import glob
import json
import os
import re
import statistics
import sys
import time
from typing import Dict, List, Tuple

from . import html_report, qemu, runner
from .kernel import CellBuild
from .results import Outcome, Row, in_contract_suite

BENCH_LINE = re.compile(r'zsp-bench: (\w+) (\d+) (\d+) (\d+) (\w+)')
TARGETS = {'zero_over_eight': 0.5, 'bulk_patched_over_vanilla': 1.02,
	   'warm_rerun_s': 30, 'cold_matrix_s': 480}


def host_khz() -> int:
	"""The test kernels have no HPET or ACPI PM timer: when a loaded host
	makes the PIT calibration of the TSC fail, the guest falls back to
	jiffies (4 ms steps) and a 0.1 ms kfree_bulk() reads as 0 ns. Under
	TCG the guest's TSC runs at the host's rate; telling the guest that
	rate keeps the TSC. Ratios do not depend on it being exact."""
	with open('/proc/cpuinfo') as f:
		m = re.search(r'^cpu MHz\s*:\s*([\d.]+)', f.read(), re.M)
	return int(float(m.group(1)) * 1000) if m else 1000000


def guest(out: str, build: CellBuild, n: str) -> int:
	"""Boot n of the bench module in one cell; bench.sh interleaves the
	boots of all cells, so that a drift of the host's load hits them alike."""
	tree, alloc = build.tree.name, build.alloc
	stem = os.path.join(out, f'guest-{tree}-{alloc}-{n}')
	runner.make_initrd(build.initramfs, build.gen_init_cpio,
			   ['zero_size_bench'], [], stem + '.cpio')
	r = qemu.boot(build.bzimage, stem + '.cpio',
		      stem + '.log', 600, 120, f'tsc_early_khz={host_khz()}')
	os.unlink(stem + '.cpio')
	res: Dict[str, Row] = {}
	with open(stem + '.log', errors='replace') as f:
		for m in BENCH_LINE.finditer(f.read()):
			res[m.group(1)] = {'median': int(m.group(2)), 'min': int(m.group(3)),
					   'max': int(m.group(4)), 'unit': m.group(5)}
	with open(stem + '.json', 'w') as f:
		json.dump({'tree': tree, 'allocator': alloc, 'outcome': r.outcome,
			   'results': res}, f, indent=1)
	print(f'    {tree}-{alloc} #{n}: {r.outcome}, {len(res)} measurements', file=sys.stderr)
	return 0 if r.outcome == Outcome.POWEROFF and res else 1


def kunit_statuses(path: str) -> Dict[str, str]:
	"""suite.case -> status, from a kunit.py --json file."""
	statuses: Dict[str, str] = {}

	def walk(group: Row) -> None:
		for sub in group.get('sub_groups', []):
			walk(sub)
		for case in group.get('test_cases', []):
			statuses[f"{group['name']}.{case['name']}"] = case['status']
	try:
		with open(path) as f:
			walk(json.load(f))
	except (OSError, ValueError):
		pass
	return statuses


def peer(out: str, alloc: str) -> int:
	"""peer.json from peer.sh's timings and kunit.py's verdicts."""
	runs = {}
	with open(os.path.join(out, 'peer-times')) as f:
		for line in f:
			name, secs, rc = line.split()
			runs[name] = {'seconds': float(secs), 'rc': int(rc)}
	statuses = kunit_statuses(os.path.join(out, 'again.json'))
	counts: Dict[str, int] = {}
	for st in statuses.values():
		counts[st] = counts.get(st, 0) + 1
	data = {'allocator': alloc, 'runs': runs, 'counts': counts, 'cases': statuses}
	with open(os.path.join(out, 'peer.json'), 'w') as f:
		json.dump(data, f, indent=1)
	print(f'    peer kunit.py ({alloc}): first {runs["first"]["seconds"]} s, '
	      f'again {runs["again"]["seconds"]} s, {counts}', file=sys.stderr)
	return 0 if statuses else 1


def merge_boots(paths: List[str]) -> Dict[Tuple[str, str], Dict[str, Row]]:
	"""Per cell and measurement, over its boots: the median of the boots'
	medians, the smallest minimum, the largest maximum."""
	seen: Dict[Tuple[str, str], Dict[str, List[Row]]] = {}
	for path in paths:
		with open(path) as f:
			g = json.load(f)
		for name, m in g['results'].items():
			seen.setdefault((g['tree'], g['allocator']), {}).setdefault(name, []).append(m)
	merged: Dict[Tuple[str, str], Dict[str, Row]] = {}
	for key, names in seen.items():
		merged[key] = {}
		for name, ms in names.items():
			merged[key][name] = {
				'median': int(statistics.median(m['median'] for m in ms)),
				'min': min(m['min'] for m in ms), 'max': max(m['max'] for m in ms),
				'unit': ms[0]['unit'], 'boots': len(ms)}
	return merged


def peer_summary(out: str) -> Row:
	"""kunit.py's runs beside the FRESH=1 cell: times, ratio, verdicts."""
	try:
		with open(os.path.join(out, 'peer', 'peer.json')) as f:
			p = json.load(f)
		with open(os.path.join(out, 'peer', 'cell-time.json')) as f:
			cell_s = json.load(f)['peer_cell_s']
		with open(os.path.join(out, 'peer', 'cell', 'cell.json')) as f:
			cell_cases = json.load(f)['cases']
	except (OSError, ValueError, KeyError):
		return {}
	ours = {f"{c['suite']}.{c['case']}": c['status'] for c in cell_cases
		if in_contract_suite(c)}
	theirs = p['cases']
	both = sorted(set(ours) & set(theirs))
	differ = [n for n in both if ours[n] != theirs[n].lower()]
	again = p['runs']['again']['seconds']
	return {'allocator': p['allocator'],
		'kunit_py_first_s': p['runs']['first']['seconds'],
		'kunit_py_rerun_s': again, 'cell_fresh_s': round(cell_s, 2),
		'cell_over_kunit_py': round(cell_s / again, 3) if again else None,
		'counts': p['counts'], 'compared': len(both),
		'agree': len(both) - len(differ), 'differ': differ}


def record(path: str, name: str, value: object) -> None:
	"""Sets name in the JSON object at path (made if missing)."""
	data: Row = {}
	if os.path.exists(path):
		with open(path) as f:
			data = json.load(f)
	data[name] = value
	with open(path + '.tmp', 'w') as f:
		json.dump(data, f, indent=1)
	os.replace(path + '.tmp', path)


def elapsed(since: str) -> float:
	"""Seconds since a bash $EPOCHREALTIME (or date +%s.%N) reading."""
	return round(time.time() - float(since), 2)


def stage_times(run: str) -> Dict[str, float]:
	"""Seconds per pipeline stage, summed over the cells of a run."""
	total: Dict[str, float] = {}
	for path in (glob.glob(os.path.join(run, '*', 'timings')) +
		     glob.glob(os.path.join(run, 'tree-*.timings'))):
		with open(path) as f:
			for line in f:
				name, secs = line.split()
				total[name] = round(total.get(name, 0.0) + float(secs), 2)
	return total


def report(out: str) -> int:
	with open(os.path.join(out, 'pipeline.json')) as f:
		pipe = json.load(f)
	guests = merge_boots(glob.glob(os.path.join(out, 'guest-*.json')))
	ratios: Dict[str, Row] = {}
	for (tree, alloc), res in sorted(guests.items()):
		z, e = res.get('kmalloc0_kfree'), res.get('kmalloc8_kfree')
		if z and e and e['median']:
			ratios[f'{tree}/{alloc} zero_over_eight'] = {
				'value': round(z['median'] / e['median'], 3),
				'target': TARGETS['zero_over_eight']}
		b = res.get('zero_alloc_1e6_bytes')
		if b:
			ratios[f'{tree}/{alloc} zero_alloc_1e6_bytes'] = {
				'value': b['max'], 'target': 0}
	for alloc in ('slab', 'slub', 'slob'):
		v = guests.get(('vanilla', alloc), {}).get('kfree_bulk_1000')
		p = guests.get(('patched', alloc), {}).get('kfree_bulk_1000')
		if v and p and v['median']:
			# TCG timing is noisy: the ratio of the fastest rounds is
			# given beside the ratio of the medians.
			ratios[f'{alloc} kfree_bulk patched_over_vanilla'] = {
				'value': round(p['median'] / v['median'], 3),
				'min_ratio': round(p['min'] / max(v['min'], 1), 3),
				'target': TARGETS['bulk_patched_over_vanilla'],
				'spread': [v['min'], v['max'], p['min'], p['max']]}
	for k in ('warm_rerun_s', 'cold_matrix_s'):
		if isinstance(pipe.get(k), (int, float)):
			ratios[k] = {'value': round(pipe[k], 1), 'target': TARGETS[k]}
	peer_data = peer_summary(out)
	if peer_data.get('cell_over_kunit_py'):
		ratios['slub cell FRESH=1 over kunit.py rerun'] = {
			'value': peer_data['cell_over_kunit_py'], 'target': None}
	data = {'pipeline': pipe, 'guest': {f'{t}/{a}': r for (t, a), r in guests.items()},
		'peer': peer_data, 'ratios': ratios}
	with open(os.path.join(out, 'bench.json'), 'w') as f:
		json.dump(data, f, indent=1)
	lines = ['pipeline (wall seconds)']
	for k, v in pipe.items():
		shown = str(v)
		if isinstance(v, dict):
			shown = '  '.join(f'{n} {t:.1f}' for n, t in v.items())
		elif isinstance(v, float):
			shown = f'{v:.1f}'
		lines.append(f'  {k:<34} {shown}')
	lines.append('')
	if peer_data:
		lines.append(f"peer ({peer_data['allocator']}): kunit.py run --arch=x86_64, suite built in")
		for k in ('kunit_py_first_s', 'kunit_py_rerun_s', 'cell_fresh_s',
			  'cell_over_kunit_py'):
			lines.append(f'  {k:<34} {peer_data.get(k)}')
		lines.append(f"  {'kunit.py verdicts':<34} {peer_data['counts']}")
		lines.append(f"  {'same verdict as the cell':<34} {peer_data['agree']} of "
			     f"{peer_data['compared']} zero_size cases"
			     + (f"; differ: {', '.join(peer_data['differ'])}" if peer_data['differ'] else ''))
		lines.append('')
	lines.append(f"{'guest (median [min..max])':<40} " +
		     ' '.join(f'{t[:3]}/{a:<5}'.ljust(24) for t, a in sorted(guests)))
	names = sorted({n for r in guests.values() for n in r})
	for n in names:
		row = f'  {n:<38} '
		for key in sorted(guests):
			m = guests[key].get(n)
			cellv = f"{m['median']}[{m['min']}..{m['max']}]{m['unit']}" if m else '-'
			row += cellv.ljust(24) + ' '
		lines.append(row)
	lines.append('')
	lines.append('ratios (target)')
	for k, v in ratios.items():
		over = v['target'] is not None and v['value'] > v['target']
		extra = f" (fastest rounds: {v['min_ratio']})" if 'min_ratio' in v else ''
		target = f"(target <= {v['target']})" if v['target'] is not None else '(no target)'
		lines.append(f"  {k:<44} {v['value']:<8} {target}{extra}"
			     + ('  OVER TARGET' if over else ''))
	text = '\n'.join(lines)
	with open(os.path.join(out, 'bench.txt'), 'w') as f:
		f.write(text + '\n')
	html_report.main(out)
	print(text)
	return 0


