# SPDX-License-Identifier: GPL-2.0
"""python3 -m zsp SUBCOMMAND: the harness's command line.

The user's subcommands are what the Makefile's targets run (make help);
"python3 -m zsp internal SUBCOMMAND" holds the plumbing, apart from
them: what the Makefile and matrix/*.sh ask of the harness (the axes,
trees, locks, make bench's measurements) and the harness's own
processes (a cell's boots, a step of git bisect run). Each subcommand
is a handler, cmd_NAME, and the function that adds its flags, add_NAME;
past the handler, the flags travel as a typed request (pipeline's,
commits', mutants'..., built here), never as argparse's Namespace."""

import argparse
import json
import os
import sys
from typing import Callable, List, Optional, Sequence

from . import (axes, baseline, bench, callsites, check, commits, cover, docs, export, lock,
	       merge, mutants, pipeline, profiles, qemu, runner, send, series, series_table, settings,
	       table, testrun)
from .errors import ZspError
from .kernel import CellBuild, Tree

DESCRIPTION = ("The zero-size contract matrix's harness: the Makefile's targets run "
	       'its subcommands (make help). Those under "internal" are plumbing for the '
	       'Makefile, matrix/*.sh (bench.sh, lib.sh, peer.sh, deps.sh) and the '
	       "harness's own processes (a cell's boots in the guest-facing runner, a "
	       'step of git bisect run): python3 -m zsp internal -h.')

INTERNAL_DESCRIPTION = ("The harness's plumbing, not for the user: what the Makefile and "
			'matrix/*.sh ask of it (the axes, the series, trees, locks, make '
			"bench's measurements), its own processes (a cell's boots, one QEMU "
			'boot, a step of git bisect run) and what its fault tests drive '
			'(a build step, a cell).')

Handler = Callable[[argparse.Namespace], int]


class Commands:
	"""One level of subcommands, each parser with its handler."""

	def __init__(self, p: argparse.ArgumentParser, dest: str, metavar: str) -> None:
		self.sub = p.add_subparsers(dest=dest, required=True, metavar=metavar)

	def add(self, name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
		sp = self.sub.add_parser(name, help=help, description=help)
		sp.set_defaults(handler=handler)
		return sp

	def group(self, name: str, help: str, description: str, metavar: str) -> 'Commands':
		"""A subcommand whose own subcommands are the handlers."""
		return Commands(self.sub.add_parser(name, help=help, description=description),
				name, metavar)


# -- the requests: typed records of the parsed flags ---------------------------
# (runner.run, boot-cell's, is the one handler still given the Namespace.)

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


def pipeline_flags(p: argparse.ArgumentParser, max_boots: int = runner.MAX_BOOTS) -> None:
	"""Settings' flags and a cell's limits: what builds and boots cells."""
	settings.add_arguments(p)
	pipeline.add_limits(p, max_boots=max_boots)


# -- the user's subcommands, in make help's order ------------------------------

def cmd_run(args: argparse.Namespace) -> int:
	return pipeline.run(settings.from_args(args), run_request(args))


def add_run(c: Commands) -> None:
	sp = c.add('run', cmd_run, 'every cell of a run (trees x allocators), then the table')
	sp.add_argument('run', help='the run directory (results/RUN)')
	sp.add_argument('--trees', default='', help='space-separated trees (default: all)')
	sp.add_argument('--allocs', default='', help='space-separated allocators (default: all)')
	sp.add_argument('--profiles', default='',
			help='space-separated profiles (PROFILE=; default: --profile)')
	sp.add_argument('--kernels', default='',
			help="space-separated kernels, or 'all' (KERNEL=; default: --kernel-version)")
	pipeline_flags(sp)


def cmd_test(args: argparse.Namespace) -> int:
	return testrun.main(settings.from_args(args), test_request(args))


def add_test(c: Commands) -> None:
	sp = c.add('test', cmd_test, 'every stage of make test, then "N passed, N failed"')
	testrun.add_arguments(sp)
	pipeline_flags(sp)


def cmd_profile_configs(args: argparse.Namespace) -> int:
	return profiles.main(settings.from_args(args),
			     profiles.ProfilesRequest(debian_config=args.debian_config))


def add_profile_configs(c: Commands) -> None:
	sp = c.add('profile-configs', cmd_profile_configs, 'configs/{distro,debug}*.config '
		   "(distro: from Debian's kernel config), allocator by allocator as Kconfig decides")
	sp.add_argument('--debian-config', default='',
			help="the Debian config to take the values from (default: the kernel's, "
			'zsp/axes.py, e.g. ' + axes.KERNELS[axes.DEFAULT_KERNEL].debian_config + ')')
	settings.add_arguments(sp)


def cmd_check(args: argparse.Namespace) -> int:
	return check.main(settings.from_args(args), args.kernels)


def add_check(c: Commands) -> None:
	sp = c.add('check', cmd_check, 'shellcheck, mypy --strict; the series: git am, '
		   'checkpatch --strict, sign-off')
	sp.add_argument('--kernels', default='all',
			help="whose series to check: space-separated kernels or 'all' "
			'(KERNEL=; default: %(default)s)')
	settings.add_arguments(sp)


def cmd_cover_letter(args: argparse.Namespace) -> int:
	return cover.main(settings.from_args(args), args.run)


def add_cover_letter(c: Commands) -> None:
	sp = c.add('cover-letter', cmd_cover_letter, "write the series' cover letter "
		   '(PATCHES/0000-cover-letter.patch) with a run\'s results')
	sp.add_argument('run', help='a finished run of the matrix (results/RUN)')
	settings.add_arguments(sp)


def cmd_send(args: argparse.Namespace) -> int:
	return send.main(settings.from_args(args), args.out)


def add_send(c: Commands) -> None:
	sp = c.add('send', cmd_send, 'the series as your git identity would mail it: '
		   'git send-email --dry-run, nothing sent')
	sp.add_argument('out', help='where the prepared messages and the log go (results/send-RUN)')
	settings.add_arguments(sp)


def cmd_bisect(args: argparse.Namespace) -> int:
	return commits.bisect(settings.from_args(args), bisect_request(args))


def add_bisect(c: Commands) -> None:
	sp = c.add('bisect', cmd_bisect, 'the first patch of the series that breaks one allocator')
	sp.add_argument('run', help='the run directory (results/bisect-ALLOC-RUN)')
	sp.add_argument('--alloc', required=True, help='the allocator (ALLOC=)')
	sp.add_argument('--good', default='base',
			help='a patch file name, "base" or a commit (GOOD=; default: %(default)s)')
	sp.add_argument('--bad', default='', help='the same (BAD=; default: the last patch)')
	sp.add_argument('--case', default='', help='judge this case only (CASE=)')
	sp.add_argument('--boot-all', action='store_true',
			help='with --case, still boot the whole suite at each step (as before '
			'CASE= booted one case; for make bench\'s before/after)')
	pipeline_flags(sp)


def cmd_callsites(args: argparse.Namespace) -> int:
	return callsites.main(args.run)


def add_callsites(c: Commands) -> None:
	sp = c.add('callsites', cmd_callsites, "a run's zero-byte kmalloc-family requests, "
		   'caller -> count per cell (cells of a profile that counts them)')
	sp.add_argument('run', help='the run directory (results/RUN)')


def cmd_series_check(args: argparse.Namespace) -> int:
	return commits.series_check(settings.from_args(args), series_check_request(args))


def add_series_check(c: Commands) -> None:
	sp = c.add('series-check', cmd_series_check, 'every prefix of the series x every allocator')
	sp.add_argument('run', help='the run directory (results/series-RUN)')
	pipeline_flags(sp)


def cmd_merge(args: argparse.Namespace) -> int:
	return merge.main(args.out, args.runs)


def add_merge(c: Commands) -> None:
	sp = c.add('merge', cmd_merge, 'cells of several runs (CI jobs, machines, caches) as one '
		   'run: its table, results.json and Z7 row across them')
	sp.add_argument('out', help='the merged run directory to create (results/merge-RUN)')
	sp.add_argument('runs', nargs='*', help='the runs whose cells to merge (RUNS=)')


def cmd_export(args: argparse.Namespace) -> int:
	return export.main(args.run, args.out_dir)


def add_export(c: Commands) -> None:
	sp = c.add('export', cmd_export, "a run's results as KernelCI kcidb JSON (v5) and JUnit XML")
	sp.add_argument('run', help='a finished run (results/RUN, with results.json)')
	sp.add_argument('--out-dir', default='', help='where to write kcidb.json and junit.xml '
			'(default: the run)')


def cmd_mutants(args: argparse.Namespace) -> int:
	return mutants.main(settings.from_args(args), mutants_request(args))


def add_mutants(c: Commands) -> None:
	sp = c.add('mutants', cmd_mutants, 'every wrong fix in matrix/mutants/ must be killed')
	sp.add_argument('run', help='the run directory (results/mutants-RUN)')
	sp.add_argument('mutants', nargs='*', metavar='MUTANT', help='only these (MUTANT=)')
	pipeline_flags(sp, max_boots=mutants.MUTANT_BOOTS)


def cmd_baseline(args: argparse.Namespace) -> int:
	return baseline.main(args.run, args.baseline, args.suggest)


def add_baseline(c: Commands) -> None:
	sp = c.add('baseline', cmd_baseline, "check a run's vanilla column against the baseline")
	sp.add_argument('run', help='the run directory (with results.json)')
	sp.add_argument('--baseline', default='', help="the default kernel's baseline file "
			"(default: its record's, matrix/baseline-vanilla.txt)")
	sp.add_argument('--suggest', action='store_true',
			help='then a baseline line for each vanilla row the check fails, to review')


def cmd_docs(args: argparse.Namespace) -> int:
	return docs.main()


def add_docs(c: Commands) -> None:
	c.add('docs', cmd_docs, 'write the blocks of README.md and docs/*.md that the source '
	      'decides (docs.py); make check fails when one is stale')


USER_COMMANDS: Sequence[Callable[[Commands], None]] = (
	add_run, add_test, add_profile_configs, add_check, add_docs, add_cover_letter, add_send,
	add_bisect, add_callsites, add_series_check, add_merge, add_export, add_mutants,
	add_baseline)


# -- internal: the plumbing ----------------------------------------------------

def cmd_axes(args: argparse.Namespace) -> int:
	k = axes.KERNELS[args.kernel]
	values = {'allocators': k.allocators, 'all-allocators': axes.all_allocators(),
		  'trees': axes.TREES,
		  'kernels': tuple(axes.KERNELS), 'profiles': tuple(axes.PROFILES),
		  'callsites-profiles': tuple(p.name for p in axes.PROFILES.values() if p.callsites),
		  'tarball': (k.source_tarball(os.path.abspath(args.cache)),),
		  'debian-config': (k.debian_config_path(os.path.abspath(args.cache)),),
		  # What deps.sh installs for make profile-configs; a suite's
		  # kernel has its config fetched with its source (fetched).
		  'config-package': () if k.suite else (k.config_package,),
		  'package': (k.package,), 'fetched': k.packages if k.suite else (),
		  'suite': (k.suite,) if k.suite else (), 'cache': (os.path.abspath(args.cache),),
		  # What apt-get installs (deps.sh); a suite's are fetched.
		  'packages': tuple(dict.fromkeys(k.package for k in axes.KERNELS.values()
						  if not k.suite))}
	print(' '.join(values[args.what]))
	return 0


def add_axes(c: Commands) -> None:
	sp = c.add('axes', cmd_axes, "print one of the matrix's axes (for the Makefile and scripts)")
	sp.add_argument('what', choices=['allocators', 'all-allocators', 'trees', 'kernels', 'profiles',
					 'callsites-profiles', 'tarball', 'debian-config', 'config-package',
					 'package',
					 'suite', 'packages', 'cache', 'fetched'])
	sp.add_argument('--kernel', default=axes.DEFAULT_KERNEL, choices=list(axes.KERNELS),
			help='the kernel whose allocators, tarball, packages or suite to print')
	sp.add_argument('--cache', default=settings.DEFAULT_CACHE,
			help='the cache a fetched tarball is in (default: %(default)s)')


def cmd_series(args: argparse.Namespace) -> int:
	patches = os.path.abspath(args.patches) if args.patches else \
		os.path.join(axes.ROOT, axes.KERNELS[args.kernel_version].patches)
	if args.dir:
		print(patches)
		return 0
	for name in series.entries(patches):
		print(os.path.join(patches, name) if args.paths else name)
	return 0


def add_series(c: Commands) -> None:
	sp = c.add('series', cmd_series, "print the series' patch names, in order")
	sp.add_argument('--patches', default='',
			help="the series' directory (default: the kernel's)")
	sp.add_argument('--kernel-version', default=axes.DEFAULT_KERNEL, choices=list(axes.KERNELS))
	sp.add_argument('--paths', action='store_true', help='print paths, not names')
	sp.add_argument('--dir', action='store_true', help="print the series' directory")


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


def add_tree(c: Commands) -> None:
	sp = c.add('tree', cmd_tree, 'make a source tree exist (patched: the series applied); '
		   'print its path')
	sp.add_argument('tree', help='vanilla or patched')
	sp.add_argument('--path-only', action='store_true',
			help='print where the tree lives (the kernel axis decides); touch nothing')
	sp.add_argument('--timings', default=None, help='append "stage seconds" lines here')
	settings.add_arguments(sp)


def cmd_locked(args: argparse.Namespace) -> int:
	cmd = args.command[1:] if args.command[:1] == ['--'] else args.command
	if not cmd:
		print('error: locked needs a command after --', file=sys.stderr)
		return 2
	return lock.run_locked(args.cache, args.names, cmd)


def add_locked(c: Commands) -> None:
	sp = c.add('locked', cmd_locked, 'run a command under locks of the cache, released '
		   'when it ends (however it ends)')
	sp.add_argument('--cache', required=True, help='the cache directory (CACHE=)')
	sp.add_argument('--lock', action='append', required=True, dest='names', metavar='NAME',
			help='take CACHE/locks/NAME.lock (repeatable)')
	sp.add_argument('command', nargs=argparse.REMAINDER, help='-- CMD ARGS...')


def cmd_copy_tree(args: argparse.Namespace) -> int:
	s = settings.from_args(args)
	mutants.link_copy(Tree(s, 'patched').src, args.dst)
	return 0


def add_copy_tree(c: Commands) -> None:
	sp = c.add('copy-tree', cmd_copy_tree, 'a hard-linked copy of the patched tree '
		   '(without .git and O= dirs)')
	sp.add_argument('dst', help='the copy')
	settings.add_arguments(sp)


def cmd_step(args: argparse.Namespace) -> int:
	b = CellBuild(settings.from_args(args), args.tree, args.alloc, args.profile)
	log = args.log or os.devnull
	{'config': b.config, 'kernel': lambda: b.build(log), 'module': lambda: b.module(log),
	 'initramfs': b.make_initramfs}[args.step]()
	return 0


def add_step(c: Commands) -> None:
	sp = c.add('step', cmd_step, "one build step of a cell (the harness's fault tests)")
	sp.add_argument('step', choices=['config', 'kernel', 'module', 'initramfs'])
	sp.add_argument('--tree', required=True, help='vanilla or patched')
	sp.add_argument('--alloc', required=True, help='the allocator')
	sp.add_argument('--log', default='', help="the step's output")
	settings.add_arguments(sp)


def cmd_cell(args: argparse.Namespace) -> int:
	s = settings.from_args(args)
	if args.tree != 'mutant':	# zsp mutants' copy of the patched tree
		pipeline.check_axes(s.kernel, [args.tree], [args.alloc])
	return pipeline.cell(s, cell_request(args))


def add_cell(c: Commands) -> None:
	sp = c.add('cell', cmd_cell, 'one cell on its tree as checked out: build and boot; '
		   f'exit {pipeline.CANNOT_TEST} when it does not build')
	sp.add_argument('--tree', required=True, help='vanilla, patched (or mutant)')
	sp.add_argument('--alloc', required=True, help='the allocator')
	sp.add_argument('--out', required=True, help="the cell's directory")
	sp.add_argument('--modules', default='',
			help="modules to run (default: upstream's built tests, then the suite)")
	pipeline_flags(sp)


def cmd_boot_cell(args: argparse.Namespace) -> int:
	return runner.run(args)


def add_boot_cell(c: Commands) -> None:
	runner.add_arguments(c.add('boot-cell', cmd_boot_cell,
				   "boot one cell's kernel until every case has a result"))


def cmd_boot(args: argparse.Namespace) -> int:
	return qemu.run(boot_request(args))


def add_boot(c: Commands) -> None:
	qemu.add_arguments(c.add('boot', cmd_boot, 'one watched QEMU boot; prints its outcome'))


def cmd_bisect_step(args: argparse.Namespace) -> int:
	return commits.bisect_step(settings.from_args(args), bisect_step_request(args))


def add_bisect_step(c: Commands) -> None:
	sp = c.add('bisect-step', cmd_bisect_step, 'one step of git bisect run at the patched '
		   f'tree\'s HEAD: exit 0 good, 1 bad, {pipeline.CANNOT_TEST} cannot test')
	sp.add_argument('--alloc', required=True, help='the allocator')
	sp.add_argument('--case', default='', help='judge this case only')
	sp.add_argument('--boot-all', action='store_true', help='boot the whole suite all the same')
	sp.add_argument('--run', required=True, help="the bisect's run directory")
	pipeline_flags(sp)


def cmd_table(args: argparse.Namespace) -> int:
	if args.count:
		n = table.count(args.run)
		# "PASS FAIL SKIP": what make test counts (testrun.py).
		print(n['pass'] + n['known'], n['fail'], n['skip'])
		return 0
	return table.main(args.run)


def add_table(c: Commands) -> None:
	sp = c.add('table', cmd_table, "merge a run's cells into results.json and table.txt")
	sp.add_argument('run', help='the run directory')
	sp.add_argument('--count', action='store_true',
			help='print "PASS FAIL SKIP" of the gated rows instead')


def cmd_series_table(args: argparse.Namespace) -> int:
	return series_table.main(args.run)


def add_series_table(c: Commands) -> None:
	sp = c.add('series-table', cmd_series_table, "series-check's prefix x allocator table")
	sp.add_argument('run', help='the series-check run directory')


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


def add_bench(c: Commands) -> None:
	sp = c.add('bench', cmd_bench, "make bench's measurements")
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


# Grouped by who calls them: the Makefile and scripts, a run's own
# processes, make bench.
INTERNAL_COMMANDS: Sequence[Callable[[Commands], None]] = (
	add_axes, add_series, add_tree, add_locked, add_copy_tree, add_step, add_cell,
	add_boot_cell, add_boot, add_bisect_step, add_table, add_series_table, add_bench)


def build_parser() -> argparse.ArgumentParser:
	p = argparse.ArgumentParser(prog='python3 -m zsp', description=DESCRIPTION)
	user = Commands(p, 'subcommand', 'SUBCOMMAND')
	for add in USER_COMMANDS:
		add(user)
	internal = user.group('internal', 'plumbing for the Makefile, matrix/*.sh and the '
			      "harness's own processes, not for the user: "
			      'python3 -m zsp internal -h', INTERNAL_DESCRIPTION, 'INTERNAL')
	for add in INTERNAL_COMMANDS:
		add(internal)
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
