# SPDX-License-Identifier: GPL-2.0
"""make bench's measurements and report.

  bench.py guest OUT TREE ALLOC N [--clock icount|wall]
                                      boot the cell's kernel with zero_size_bench
                                      and write OUT/guest-CLOCK-TREE-ALLOC-N.json
  bench.py bloat OUT ALLOC            scripts/bloat-o-meter of vanilla vs
                                      patched vmlinux: OUT/bloat-ALLOC.txt
  bench.py peer OUT ALLOC             OUT/peer.json from peer.sh's runs
  bench.py stages RUN                 seconds per stage, summed over cells
  bench.py report OUT                 bench.json and bench.txt from the
                                      pipeline, peer and guest results

Each cell's guest boots under two clocks. "icount": QEMU counts
instructions (qemu.ICOUNT) and the guest's clock is that count, one
nanosecond per instruction: a figure is instructions, exact to the
run-to-run spread the report prints (target: within SPREAD_MAX), and the
series' cost targets are judged on these. "wall": TCG's wall clock, which
the host's load moves by tens of percent; kept beside, labelled noisy.
The report gives ratios measured in one run: kmalloc(0)+kfree over
kmalloc(8)+kfree per allocator; kfree_bulk() (1,000 small, 1,000 of mixed
sizes), kmem_cache_free() and kvfree_rcu() patched over vanilla.
"""

import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Tuple

from . import axes, bench_plots, html_report, qemu, runner
from .kernel import CellBuild
from .results import Outcome, Row, in_contract_suite

BENCH_LINE = re.compile(r'zsp-bench: (\w+) (\d+) (\d+) (\d+) (\w+)')
TARGETS = {'zero_over_eight': 0.5, 'patched_over_vanilla': 1.02,
	   'warm_rerun_s': 15, 'cold_matrix_s': 480}
CLOCKS = ('icount', 'wall')
# Instruction counts of one cell's boots must agree within this.
SPREAD_MAX = 0.01
# The measurements whose patched/vanilla ratio has a target: the paths the
# series adds a check to.
COSTS = ('kfree_bulk_1000', 'kfree_bulk_mixed_1000', 'kmem_cache_free', 'kvfree_rcu')


def host_khz() -> int:
	"""The test kernels have no HPET or ACPI PM timer: when a loaded host
	makes the PIT calibration of the TSC fail, the guest falls back to
	jiffies (4 ms steps) and a 0.1 ms kfree_bulk() reads as 0 ns. Under
	TCG the guest's TSC runs at the host's rate; telling the guest that
	rate keeps the TSC. Ratios do not depend on it being exact."""
	with open('/proc/cpuinfo') as f:
		m = re.search(r'^cpu MHz\s*:\s*([\d.]+)', f.read(), re.M)
	return int(float(m.group(1)) * 1000) if m else 1000000


def guest(out: str, build: CellBuild, n: str, clock: str = 'wall') -> int:
	"""Boot n of the bench module in one cell; bench.sh interleaves the
	boots of all cells, so that a drift of the host's load hits them alike
	(under the wall clock; under icount it cannot)."""
	tree, alloc = build.tree.name, build.alloc
	stem = os.path.join(out, f'guest-{clock}-{tree}-{alloc}-{n}')
	runner.make_initrd(build.initramfs, build.gen_init_cpio,
			   ['zero_size_bench'], [], stem + '.cpio')
	# Under icount the TSC is calibrated against the counted clock, as
	# every other clock of the guest: no host rate to pass.
	append = '' if clock == 'icount' else f'tsc_early_khz={host_khz()}'
	r = qemu.boot(build.bzimage, stem + '.cpio', stem + '.log', 1200, 300, append,
		      icount=clock == 'icount')
	os.unlink(stem + '.cpio')
	res: Dict[str, Row] = {}
	with open(stem + '.log', errors='replace') as f:
		for m in BENCH_LINE.finditer(f.read()):
			res[m.group(1)] = {'median': int(m.group(2)), 'min': int(m.group(3)),
					   'max': int(m.group(4)), 'unit': m.group(5)}
	with open(stem + '.json', 'w') as f:
		json.dump({'clock': clock, 'tree': tree, 'allocator': alloc, 'outcome': r.outcome,
			   'results': res}, f, indent=1)
	print(f'    {clock} {tree}-{alloc} #{n}: {r.outcome}, {len(res)} measurements',
	      file=sys.stderr)
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


def bloat(out: str, alloc: str, vanilla: str, patched: str, tool: str) -> int:
	"""scripts/bloat-o-meter -t of two vmlinux: the series' text growth,
	by function."""
	p = subprocess.run([tool, '-t', vanilla, patched], capture_output=True, text=True)
	with open(os.path.join(out, f'bloat-{alloc}.txt'), 'w') as f:
		f.write(p.stdout + p.stderr)
	return p.returncode


def bloat_totals(out: str) -> Dict[str, Row]:
	"""alloc -> bloat-o-meter's "Total: Before=.., After=.., chg +x.xx%"."""
	totals: Dict[str, Row] = {}
	for path in sorted(glob.glob(os.path.join(out, 'bloat-*.txt'))):
		alloc = os.path.basename(path)[len('bloat-'):-len('.txt')]
		with open(path) as f:
			text = f.read()
		m = re.search(r'Total: Before=(\d+), After=(\d+), chg ([+-]?[\d.]+)%', text)
		grow = re.search(r'up/down: ([+-]?\d+)/([+-]?\d+) \(([+-]?\d+)\)', text)
		if m:
			totals[alloc] = {'before': int(m.group(1)), 'after': int(m.group(2)),
					 'change_pct': float(m.group(3)),
					 'delta': int(grow.group(3)) if grow else None}
	return totals


def spread(values: List[int]) -> float:
	"""(largest - smallest) / smallest of the boots' medians."""
	return round((max(values) - min(values)) / max(min(values), 1), 4)


def merge_boots(paths: List[str]) -> Dict[Tuple[str, str, str], Dict[str, Row]]:
	"""Per clock, cell and measurement, over its boots: the median of the
	boots' medians, the smallest minimum, the largest maximum, and the
	spread of the boots' medians."""
	seen: Dict[Tuple[str, str, str], Dict[str, List[Row]]] = {}
	for path in paths:
		with open(path) as f:
			g = json.load(f)
		key = (g.get('clock', 'wall'), g['tree'], g['allocator'])
		for name, m in g['results'].items():
			seen.setdefault(key, {}).setdefault(name, []).append(m)
	merged: Dict[Tuple[str, str, str], Dict[str, Row]] = {}
	for key, names in seen.items():
		merged[key] = {}
		for name, ms in names.items():
			merged[key][name] = {
				'median': int(statistics.median(m['median'] for m in ms)),
				'min': min(m['min'] for m in ms), 'max': max(m['max'] for m in ms),
				'unit': ms[0]['unit'], 'boots': len(ms),
				'spread': spread([m['median'] for m in ms])}
	return merged


def cost_ratios(guests: Dict[Tuple[str, str, str], Dict[str, Row]]) -> Dict[str, Row]:
	"""Per clock, allocator and COSTS measurement: patched over vanilla.
	Judged (a target) under icount only; the wall clock's is shown."""
	ratios: Dict[str, Row] = {}
	for clock in CLOCKS:
		for alloc in axes.all_allocators():
			for name in COSTS:
				v = guests.get((clock, 'vanilla', alloc), {}).get(name)
				p = guests.get((clock, 'patched', alloc), {}).get(name)
				if not (v and p and v['median']):
					continue
				ratios[f'{clock} {alloc} {name} patched_over_vanilla'] = {
					'value': round(p['median'] / v['median'], 4),
					'target': TARGETS['patched_over_vanilla'] if clock == 'icount' else None,
					'spread': max(v['spread'], p['spread'])}
	return ratios


def spread_checks(guests: Dict[Tuple[str, str, str], Dict[str, Row]]) -> Dict[str, Row]:
	"""icount's promise: a cell's boots agree within SPREAD_MAX."""
	out: Dict[str, Row] = {}
	for (clock, tree, alloc), res in sorted(guests.items()):
		if clock != 'icount':
			continue
		boots = max((m['boots'] for m in res.values()), default=0)
		worst = max((m['spread'] for m in res.values()
			     if m['unit'] != 'B'), default=0.0)
		out[f'icount {tree}/{alloc} spread over {boots} boots'] = {
			'value': worst, 'target': SPREAD_MAX if boots > 1 else None}
	return out


def bisect_ratio(pipe: Row) -> Dict[str, Row]:
	"""The CASE= bisect's time over the whole-suite one's, when both
	named the same first bad patch (else the times compare nothing)."""
	case, every = pipe.get('bisect_case_s'), pipe.get('bisect_boot_all_s')
	answer = pipe.get('bisect_case_answer', '')
	if not (case and every and answer.startswith('first bad patch')
		and answer == pipe.get('bisect_boot_all_answer')):
		return {}
	return {'bisect CASE= over whole-suite boots': {'value': round(case / every, 3),
							 'target': None}}


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


GUEST_HEADINGS = {
	'icount': 'guest, icount (instruction-exact: 1 ns = 1 instruction)',
	'wall': "guest, TCG wall clock (noisy: the host's load moves it)"}
# Under icount a time is an instruction count: ps per call is
# milli-instructions per call, ns per call instructions.
ICOUNT_UNITS = {'ps': 'm-insn', 'ns': 'insn'}


def report(out: str) -> int:
	with open(os.path.join(out, 'pipeline.json')) as f:
		pipe = json.load(f)
	guests = merge_boots(glob.glob(os.path.join(out, 'guest-*.json')))
	ratios: Dict[str, Row] = {}
	for (clock, tree, alloc), res in sorted(guests.items()):
		z, e = res.get('kmalloc0_kfree'), res.get('kmalloc8_kfree')
		if z and e and e['median']:
			ratios[f'{clock} {tree}/{alloc} zero_over_eight'] = {
				'value': round(z['median'] / e['median'], 3),
				'target': TARGETS['zero_over_eight'] if clock == 'icount' else None}
		b = res.get('zero_alloc_1e6_bytes')
		if b and clock == 'icount':
			ratios[f'{tree}/{alloc} zero_alloc_1e6_bytes'] = {
				'value': b['max'], 'target': 0}
	ratios.update(cost_ratios(guests))
	ratios.update(spread_checks(guests))
	for k in ('warm_rerun_s', 'cold_matrix_s'):
		if isinstance(pipe.get(k), (int, float)):
			ratios[k] = {'value': round(pipe[k], 1), 'target': TARGETS[k]}
	ratios.update(bisect_ratio(pipe))
	peer_data = peer_summary(out)
	if peer_data.get('cell_over_kunit_py'):
		ratios['slub cell FRESH=1 over kunit.py rerun'] = {
			'value': peer_data['cell_over_kunit_py'], 'target': None}
	sizes = bloat_totals(out)
	data = {'pipeline': pipe,
		'guest': {f'{c} {t}/{a}': r for (c, t, a), r in guests.items()},
		'bloat': sizes, 'peer': peer_data, 'ratios': ratios}
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
	for clock in CLOCKS:
		keys = sorted(k for k in guests if k[0] == clock)
		if not keys:
			continue
		lines.append(GUEST_HEADINGS[clock])
		lines.append(f"  {'median [min..max] unit':<38} " +
			     ' '.join(f'{t[:3]}/{a:<5}'.ljust(24) for _, t, a in keys))
		for n in sorted({n for k in keys for n in guests[k]}):
			row = f'  {n:<38} '
			for key in keys:
				m = guests[key].get(n)
				unit = ICOUNT_UNITS.get(m['unit'], m['unit']) if m and clock == 'icount' \
					else m['unit'] if m else ''
				cellv = f"{m['median']}[{m['min']}..{m['max']}]{unit}" if m else '-'
				row += cellv.ljust(24) + ' '
			lines.append(row)
		lines.append('')
	if sizes:
		lines.append('text growth of the series (scripts/bloat-o-meter vanilla patched vmlinux)')
		for alloc, t in sizes.items():
			lines.append(f"  {alloc:<8} {t['before']} -> {t['after']} bytes "
				     f"({t['change_pct']:+.2f}%); bloat-{alloc}.txt")
		lines.append('')
	lines.append('ratios (target; wall-clock ones are noisy and have none)')
	for k, v in ratios.items():
		over = v['target'] is not None and v['value'] > v['target']
		extra = f" (boots' spread {v['spread']:.2%})" if 'spread' in v else ''
		target = f"(target <= {v['target']})" if v['target'] is not None else '(no target)'
		lines.append(f"  {k:<56} {v['value']:<8} {target}{extra}"
			     + ('  OVER TARGET' if over else ''))
	text = '\n'.join(lines)
	with open(os.path.join(out, 'bench.txt'), 'w') as f:
		f.write(text + '\n')
	bench_plots.main(out)
	html_report.main(out)
	print(text)
	return 0


