# SPDX-License-Identifier: GPL-2.0
"""python3 -m zsp SUBCOMMAND: the harness's command line. The Makefile and
the stage scripts in matrix/ call these; "python3 -m zsp -h" lists them."""

import argparse
import json
import os
import sys
from typing import Callable, Dict, List, Optional

from . import (axes, baseline, bench, callsites, check, commits, cover, export, lock,
	       merge, mutants, pipeline, profiles, qemu, runner, series, series_table, settings,
	       table, testrun)
from .errors import ZspError
from .kernel import CellBuild, Tree


# -- the requests: typed records of the parsed flags, past which no
# argparse.Namespace goes (but runner.run's, boot-cell's own parser) ----------

def limits(args: argparse.Namespace) -> pipeline.Limits:
	return pipeline.Limits(timeout=args.timeout, silence=args.silence,
			       max_boots=args.max_boots)


def run_request(args: argparse.Namespace) -> pipeline.RunRequest:
	return pipeline.RunRequest(run=args.run, trees=args.trees, allocs=args.allocs,
				   profiles=args.profiles, kernels=args.kernels,
				   profile=args.profile, own_patches=bool(args.patches),
				   limits=limits(args))


def cell_request(args: argparse.Namespace) -> pipeline.CellRequest:
	return pipeline.CellRequest(tree=args.tree, alloc=args.alloc, out=args.out,
				    profile=args.profile, modules=args.modules,
				    limits=limits(args))


def bisect_request(args: argparse.Namespace) -> commits.BisectRequest:
	return commits.BisectRequest(run=args.run, alloc=args.alloc, good=args.good, bad=args.bad,
				     case=args.case, boot_all=args.boot_all, profile=args.profile,
				     limits=limits(args))


def bisect_step_request(args: argparse.Namespace) -> commits.BisectRequest:
	"""A step's: its bisect's, but for GOOD= and BAD=, which git bisect
	run has already taken."""
	return commits.BisectRequest(run=args.run, alloc=args.alloc, case=args.case,
				     boot_all=args.boot_all, profile=args.profile,
				     limits=limits(args))


def series_check_request(args: argparse.Namespace) -> commits.SeriesCheckRequest:
	return commits.SeriesCheckRequest(run=args.run, profile=args.profile,
					  limits=limits(args))


def mutants_request(args: argparse.Namespace) -> mutants.MutantsRequest:
	return mutants.MutantsRequest(run=args.run, mutants=tuple(args.mutants),
				      profile=args.profile, limits=limits(args))


def test_request(args: argparse.Namespace) -> testrun.TestRequest:
	return testrun.TestRequest(results=args.results, stages=args.stages,
				   profile=args.profile, own_patches=bool(args.patches),
				   limits=limits(args))


def boot_request(args: argparse.Namespace) -> qemu.BootRequest:
	return qemu.BootRequest(kernel=args.kernel, initrd=args.initrd, log=args.log,
				timeout=args.timeout, silence=args.silence)


# -- the subcommands ----------------------------------------------------------

def cmd_run(args: argparse.Namespace) -> int:
	return pipeline.run(settings.from_args(args), run_request(args))


def cmd_cell(args: argparse.Namespace) -> int:
	s = settings.from_args(args)
	if args.tree != 'mutant':	# zsp mutants' copy of the patched tree
		pipeline.check_axes(s.kernel, [args.tree], [args.alloc])
	return pipeline.cell(s, cell_request(args))


def cmd_tree(args: argparse.Namespace) -> int:
	s = settings.from_args(args)
	pipeline.check_axes(s.kernel, [args.tree], [])
	tree = Tree(s, args.tree)
	if args.path_only:
		print(tree.src)
		return 0
	with lock.held(s.cache, lock.to_take([tree.lock])):
		print(tree.prepare(args.timings))
	return 0


def cmd_step(args: argparse.Namespace) -> int:
	b = CellBuild(settings.from_args(args), args.tree, args.alloc, args.profile)
	log = args.log or os.devnull
	{'config': b.config, 'kernel': lambda: b.build(log), 'module': lambda: b.module(log),
	 'initramfs': b.make_initramfs}[args.step]()
	return 0


def cmd_series(args: argparse.Namespace) -> int:
	patches = os.path.abspath(args.patches) if args.patches else \
		os.path.join(axes.ROOT, axes.KERNELS[args.kernel_version].patches)
	if args.dir:
		print(patches)
		return 0
	for name in series.entries(patches):
		print(os.path.join(patches, name) if args.paths else name)
	return 0


def cmd_boot_cell(args: argparse.Namespace) -> int:
	return runner.run(args)


def cmd_boot(args: argparse.Namespace) -> int:
	return qemu.run(boot_request(args))


def cmd_table(args: argparse.Namespace) -> int:
	if args.count:
		n = table.count(args.run)
		# "PASS FAIL SKIP": what make test counts (testrun.py).
		print(n['pass'] + n['known'], n['fail'], n['skip'])
		return 0
	return table.main(args.run)


def cmd_export(args: argparse.Namespace) -> int:
	return export.main(args.run, args.out_dir, args.patches)


def cmd_merge(args: argparse.Namespace) -> int:
	return merge.main(args.out, args.runs)


def cmd_callsites(args: argparse.Namespace) -> int:
	return callsites.main(args.run)


def cmd_baseline(args: argparse.Namespace) -> int:
	return baseline.main(args.run, args.baseline, args.suggest)


def cmd_series_table(args: argparse.Namespace) -> int:
	return series_table.main(args.run)


def cmd_bisect(args: argparse.Namespace) -> int:
	return commits.bisect(settings.from_args(args), bisect_request(args))


def cmd_bisect_step(args: argparse.Namespace) -> int:
	return commits.bisect_step(settings.from_args(args), bisect_step_request(args))


def cmd_series_check(args: argparse.Namespace) -> int:
	return commits.series_check(settings.from_args(args), series_check_request(args))


def cmd_mutants(args: argparse.Namespace) -> int:
	return mutants.main(settings.from_args(args), mutants_request(args))


def cmd_profile_configs(args: argparse.Namespace) -> int:
	return profiles.main(settings.from_args(args),
			     profiles.ProfilesRequest(debian_config=args.debian_config))


def cmd_check(args: argparse.Namespace) -> int:
	return check.main(settings.from_args(args), args.kernels)


def cmd_cover_letter(args: argparse.Namespace) -> int:
	return cover.main(settings.from_args(args), args.run)


def cmd_test(args: argparse.Namespace) -> int:
	return testrun.main(settings.from_args(args), test_request(args))


def cmd_copy_tree(args: argparse.Namespace) -> int:
	s = settings.from_args(args)
	mutants.link_copy(Tree(s, 'patched').src, args.dst)
	return 0


def cmd_bench(args: argparse.Namespace) -> int:
	if args.what == 'guest':
		build = CellBuild(settings.from_args(args), args.tree, args.alloc, args.profile)
		return bench.guest(args.out, build, args.n, args.clock)
	if args.what == 'bloat':
		s = settings.from_args(args)
		vanilla, patched = (CellBuild(s, t, args.alloc, args.profile) for t in axes.TREES)
		return bench.bloat(args.out, args.alloc, os.path.join(vanilla.obj, 'vmlinux'),
				   os.path.join(patched.obj, 'vmlinux'),
				   os.path.join(vanilla.tree.src, 'scripts', 'bloat-o-meter'))
	if args.what == 'peer':
		return bench.peer(args.out, args.alloc)
	if args.what == 'plant':
		print(commits.plant_bad(settings.from_args(args).patches, args.dest), commits.BAD_CASE)
		return 0
	if args.what == 'stages':
		print(json.dumps(bench.stage_times(args.out)))
		return 0
	if args.what == 'elapsed':
		print(f'{bench.elapsed(args.since):.2f}')
		return 0
	if args.what == 'record':
		value: object = args.value
		if args.since:
			value = bench.elapsed(args.since)
		elif args.stages:
			value = bench.stage_times(args.stages)
		bench.record(args.json, args.name, value)
		return 0
	return bench.report(args.out)


def cmd_locked(args: argparse.Namespace) -> int:
	cmd = args.command[1:] if args.command[:1] == ['--'] else args.command
	if not cmd:
		print('error: locked needs a command after --', file=sys.stderr)
		return 2
	return lock.run_locked(args.cache, args.names, cmd)


def cmd_axes(args: argparse.Namespace) -> int:
	k = axes.KERNELS[args.kernel]
	values = {'allocators': k.allocators, 'all-allocators': axes.all_allocators(),
		  'trees': axes.TREES,
		  'kernels': tuple(axes.KERNELS), 'profiles': tuple(axes.PROFILES),
		  'callsites-profiles': tuple(p.name for p in axes.PROFILES.values() if p.callsites),
		  'tarball': (k.tarball,), 'config-package': (k.config_package,),
		  'packages': tuple(dict.fromkeys(k.package for k in axes.KERNELS.values()))}
	print(' '.join(values[args.what]))
	return 0


Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
	p = argparse.ArgumentParser(prog='python3 -m zsp', description=__doc__.splitlines()[0])
	sub = p.add_subparsers(dest='subcommand', required=True, metavar='SUBCOMMAND')
	handlers: Dict[str, Handler] = {}

	def add(name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
		handlers[name] = handler
		sp = sub.add_parser(name, help=help, description=help)
		sp.set_defaults(handler=handler)
		return sp

	sp = add('run', cmd_run, 'every cell of a run (trees x allocators), then the table')
	sp.add_argument('run', help='the run directory (results/RUN)')
	sp.add_argument('--trees', default='', help='space-separated trees (default: all)')
	sp.add_argument('--allocs', default='', help='space-separated allocators (default: all)')
	sp.add_argument('--profiles', default='',
			help='space-separated profiles (PROFILE=; default: --profile)')
	sp.add_argument('--kernels', default='',
			help="space-separated kernels, or 'all' (KERNEL=; default: --kernel-version)")
	settings.add_arguments(sp)
	pipeline.add_limits(sp)
	sp = add('cell', cmd_cell, 'one cell on its tree as checked out: build and boot; '
		 f'exit {pipeline.CANNOT_TEST} when it does not build')
	sp.add_argument('--tree', required=True, help='vanilla, patched (or mutant)')
	sp.add_argument('--alloc', required=True, help='the allocator')
	sp.add_argument('--out', required=True, help="the cell's directory")
	sp.add_argument('--modules', default='',
			help="modules to run (default: upstream's built tests, then the suite)")
	settings.add_arguments(sp)
	pipeline.add_limits(sp)
	sp = add('tree', cmd_tree, 'make a source tree exist (patched: the series applied); '
		 'print its path')
	sp.add_argument('tree', help='vanilla or patched')
	sp.add_argument('--path-only', action='store_true',
			help='print where the tree lives (the kernel axis decides); touch nothing')
	sp.add_argument('--timings', default=None, help='append "stage seconds" lines here')
	settings.add_arguments(sp)
	sp = add('step', cmd_step, "one build step of a cell (the harness's fault tests)")
	sp.add_argument('step', choices=['config', 'kernel', 'module', 'initramfs'])
	sp.add_argument('--tree', required=True, help='vanilla or patched')
	sp.add_argument('--alloc', required=True, help='the allocator')
	sp.add_argument('--log', default='', help="the step's output")
	settings.add_arguments(sp)
	sp = add('series', cmd_series, "print the series' patch names, in order")
	sp.add_argument('--patches', default='',
			help="the series' directory (default: the kernel's)")
	sp.add_argument('--kernel-version', default=axes.DEFAULT_KERNEL, choices=list(axes.KERNELS))
	sp.add_argument('--paths', action='store_true', help='print paths, not names')
	sp.add_argument('--dir', action='store_true', help="print the series' directory")
	runner.add_arguments(add('boot-cell', cmd_boot_cell,
				 "boot one cell's kernel until every case has a result"))
	qemu.add_arguments(add('boot', cmd_boot, 'one watched QEMU boot; prints its outcome'))
	sp = add('table', cmd_table, "merge a run's cells into results.json and table.txt")
	sp.add_argument('run', help='the run directory')
	sp.add_argument('--count', action='store_true',
			help='print "PASS FAIL SKIP" of the gated rows instead')
	sp = add('export', cmd_export, "a run's results as KernelCI kcidb JSON (v5) and JUnit XML")
	sp.add_argument('run', help='a finished run (results/RUN, with results.json)')
	sp.add_argument('--out-dir', default='', help='where to write kcidb.json and junit.xml '
			'(default: the run)')
	sp.add_argument('--patches', default='', help="the series' directory, for kcidb's "
			"patchset_hash (PATCHES=; default: the kernel's)")
	sp = add('merge', cmd_merge, 'cells of several runs (CI jobs, machines, caches) as one '
		 'run: its table, results.json and Z7 row across them')
	sp.add_argument('out', help='the merged run directory to create (results/merge-RUN)')
	sp.add_argument('runs', nargs='*', help='the runs whose cells to merge (RUNS=)')
	sp = add('callsites', cmd_callsites, "a run's zero-byte kmalloc-family requests, "
		 'caller -> count per cell (cells of a profile that counts them)')
	sp.add_argument('run', help='the run directory (results/RUN)')
	sp = add('baseline', cmd_baseline, "check a run's vanilla column against the baseline")
	sp.add_argument('run', help='the run directory (with results.json)')
	sp.add_argument('--baseline', default='', help="the default kernel's baseline file "
			"(default: its record's, matrix/baseline-vanilla.txt)")
	sp.add_argument('--suggest', action='store_true',
			help='then a baseline line for each vanilla row the check fails, to review')
	sp = add('bisect', cmd_bisect, 'the first patch of the series that breaks one allocator')
	sp.add_argument('run', help='the run directory (results/bisect-ALLOC-RUN)')
	sp.add_argument('--alloc', required=True, help='the allocator (ALLOC=)')
	sp.add_argument('--good', default='base',
			help='a patch file name, "base" or a commit (GOOD=; default: %(default)s)')
	sp.add_argument('--bad', default='', help='the same (BAD=; default: the last patch)')
	sp.add_argument('--case', default='', help='judge this case only (CASE=)')
	sp.add_argument('--boot-all', action='store_true',
			help='with --case, still boot the whole suite at each step (as before '
			'CASE= booted one case; for make bench\'s before/after)')
	settings.add_arguments(sp)
	pipeline.add_limits(sp)
	sp = add('bisect-step', cmd_bisect_step, 'one step of git bisect run at the patched '
		 f'tree\'s HEAD: exit 0 good, 1 bad, {pipeline.CANNOT_TEST} cannot test')
	sp.add_argument('--alloc', required=True, help='the allocator')
	sp.add_argument('--case', default='', help='judge this case only')
	sp.add_argument('--boot-all', action='store_true', help='boot the whole suite all the same')
	sp.add_argument('--run', required=True, help="the bisect's run directory")
	settings.add_arguments(sp)
	pipeline.add_limits(sp)
	sp = add('series-check', cmd_series_check, 'every prefix of the series x every allocator')
	sp.add_argument('run', help='the run directory (results/series-RUN)')
	settings.add_arguments(sp)
	pipeline.add_limits(sp)
	sp = add('mutants', cmd_mutants, 'every wrong fix in matrix/mutants/ must be killed')
	sp.add_argument('run', help='the run directory (results/mutants-RUN)')
	sp.add_argument('mutants', nargs='*', metavar='MUTANT', help='only these (MUTANT=)')
	settings.add_arguments(sp)
	pipeline.add_limits(sp, max_boots=mutants.MUTANT_BOOTS)
	sp = add('profile-configs', cmd_profile_configs, 'configs/{distro,debug}*.config (distro: '
		 "from Debian's kernel config), allocator by allocator as Kconfig decides")
	sp.add_argument('--debian-config', default='',
			help="the Debian config to take the values from (default: the kernel's, "
			'zsp/axes.py: ' + axes.KERNELS[axes.DEFAULT_KERNEL].debian_config + ')')
	settings.add_arguments(sp)
	sp = add('check', cmd_check, 'shellcheck, mypy --strict; the series: git am, '
		 'checkpatch --strict, sign-off')
	sp.add_argument('--kernels', default='all',
			help="whose series to check: space-separated kernels or 'all' "
			'(KERNEL=; default: %(default)s)')
	settings.add_arguments(sp)
	sp = add('cover-letter', cmd_cover_letter, "write the series' cover letter "
		 '(PATCHES/0000-cover-letter.patch) with a run\'s results')
	sp.add_argument('run', help='a finished run of the matrix (results/RUN)')
	settings.add_arguments(sp)
	sp = add('test', cmd_test, 'every stage of make test, then "N passed, N failed"')
	testrun.add_arguments(sp)
	settings.add_arguments(sp)
	pipeline.add_limits(sp)
	sp = add('copy-tree', cmd_copy_tree, 'a hard-linked copy of the patched tree '
		 '(without .git and O= dirs)')
	sp.add_argument('dst', help='the copy')
	settings.add_arguments(sp)
	sp = add('series-table', cmd_series_table, "series-check's prefix x allocator table")
	sp.add_argument('run', help='the series-check run directory')
	sp = add('bench', cmd_bench, "make bench's measurements")
	bsub = sp.add_subparsers(dest='what', required=True, metavar='WHAT')
	g = bsub.add_parser('guest', help='boot the bench module once in one cell')
	for a in ('out', 'tree', 'alloc', 'n'):
		g.add_argument(a)
	g.add_argument('--clock', choices=bench.CLOCKS, default='wall',
		       help="icount: time in instructions (exact); wall: TCG's clock (noisy)")
	settings.add_arguments(g)
	g = bsub.add_parser('bloat', help='scripts/bloat-o-meter of vanilla vs patched vmlinux')
	g.add_argument('out')
	g.add_argument('alloc')
	settings.add_arguments(g)
	g = bsub.add_parser('peer', help="summarise kunit.py's run beside ours")
	g.add_argument('out')
	g.add_argument('alloc')
	g = bsub.add_parser('plant', help='a copy of the series with the planted bad SLUB '
			    'patch (for timing bisect); prints the fix it takes back and the case it breaks')
	g.add_argument('dest', help='the new series directory')
	settings.add_arguments(g)
	bsub.add_parser('stages', help="a run's per-stage times as JSON").add_argument('out')
	bsub.add_parser('report', help='bench.json and the table').add_argument('out')
	bsub.add_parser('elapsed', help='seconds since a $EPOCHREALTIME reading').add_argument('since')
	g = bsub.add_parser('record', help='set one value of a JSON record (bench.sh\'s '
			    'pipeline.json)')
	g.add_argument('json', help='the record')
	g.add_argument('name', help='the key')
	how = g.add_mutually_exclusive_group(required=True)
	how.add_argument('--value', help='a string')
	how.add_argument('--since', help='seconds since this $EPOCHREALTIME')
	how.add_argument('--stages', metavar='RUN', help="a run's per-stage seconds")
	sp = add('locked', cmd_locked, 'run a command under locks of the cache, released '
		 'when it ends (however it ends)')
	sp.add_argument('--cache', required=True, help='the cache directory (CACHE=)')
	sp.add_argument('--lock', action='append', required=True, dest='names', metavar='NAME',
			help='take CACHE/locks/NAME.lock (repeatable)')
	sp.add_argument('command', nargs=argparse.REMAINDER, help='-- CMD ARGS...')
	sp = add('axes', cmd_axes, "print one of the matrix's axes (for the Makefile and scripts)")
	sp.add_argument('what', choices=['allocators', 'all-allocators', 'trees', 'kernels', 'profiles',
					 'callsites-profiles', 'tarball', 'config-package', 'packages'])
	sp.add_argument('--kernel', default=axes.DEFAULT_KERNEL, choices=list(axes.KERNELS),
			help='the kernel whose allocators or tarball to print')
	return p


def main(argv: Optional[List[str]] = None) -> int:
	args = build_parser().parse_args(argv)
	try:
		rc: int = args.handler(args)
	except ZspError as e:	# the one line a user needs; anything else is a bug
		print(f'error: {e}', file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		return 130
	return rc


if __name__ == '__main__':
	sys.exit(main())
