# SPDX-License-Identifier: GPL-2.0
"""make mutants: mutation testing of the contract suite.

Each matrix/mutants/NN-name.patch is a plausible wrong fix: one small edit
away from a patch of a kernel's series ("Kernel:", "Mutates:"), applied on
top of the whole series and built for the allocator and profile it
targets ("Allocator:", "Profile:": the profile that tells it apart, such
as distro for a wrong fix that faults only with SLAB_FREELIST_HARDENED).
make mutants [KERNEL=] [PROFILE=] runs those of that kernel and profile. The suite
must kill it: one of the cases it names ("Kills:", booted alone) fails,
crashes or hangs; any other row that does not pass is noise, not a kill.
A mutant that passes survives and fails the run; one that cannot be
built or booted, or that only noise stops, is an error, neither killed
nor survived. A header that is missing or names no allocator or case of
the suite is an error before anything builds.

The mutants build in a hard-linked copy of the patched tree (src/mutant,
no .git), one O= dir per allocator, first a copy of the patched cell's
(seed_objects()), so that the patched cells' trees and objects are never
touched and each mutant rebuilds only the file it changes. Prints one
"ok"/"FAIL" line per mutant, then the table mutant -> killing cases
(RUN/mutants.txt).
"""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import FrozenSet, List, Tuple

from . import axes, lock, pipeline, results, runner
from .errors import MutantError
from .kernel import SUBJECTS, CellBuild, Tree, first_error, link_tree
from .pipeline import CellRequest, Limits
from .progress import log
from .settings import Settings

MUTANTS = os.path.join(axes.MATRIX, 'mutants')
# Boots per mutant: the first crash names a killer; three boots show a
# few more without spending CI time on the rest of the suite.
MUTANT_BOOTS = 3
# What the copy's last mutant changed, so that it can be put back.
TOUCHED = '.zsp-mutant'


@dataclass(frozen=True)
class MutantsRequest:
	"""make mutants (zsp mutants)."""
	run: str
	mutants: Tuple[str, ...] = ()	# MUTANT=: only these; (): every one
	profile: str = axes.DEFAULT_PROFILE
	limits: Limits = Limits(max_boots=MUTANT_BOOTS)


@dataclass
class Mutant:
	name: str
	path: str
	allocator: str
	what: str
	kills: FrozenSet[str] = frozenset()
	kernel: str = axes.DEFAULT_KERNEL
	profile: str = axes.DEFAULT_PROFILE


def field(text: str, name: str) -> str:
	"""A header's value; lines that start with a space continue it."""
	lines = text.splitlines()
	for i, line in enumerate(lines):
		if line.startswith(name + ':'):
			value = [line[len(name) + 1:].strip()]
			for more in lines[i + 1:]:
				if not more.startswith(' ') or not more.strip():
					break
				value.append(more.strip())
			return ' '.join(value)
	return ''


def load_all(top: str = MUTANTS) -> List[Mutant]:
	"""Every mutant, its headers checked: a mistyped one is an error,
	never a mutant dropped or killed by anything."""
	out = []
	cases = set(runner.source_cases())
	for f in sorted(os.listdir(top)):
		if not f.endswith('.patch'):
			continue
		path = os.path.join(top, f)
		with open(path) as fh:
			text = fh.read()
		m = Mutant(f[:-len('.patch')], path, field(text, 'Allocator'), field(text, 'Mutant'),
			   frozenset(field(text, 'Kills').replace(',', ' ').split()),
			   field(text, 'Kernel'), field(text, 'Profile'))
		if m.kernel not in axes.KERNELS:
			raise MutantError(f"{path}: Kernel: '{m.kernel}' is none of "
					  f"{' '.join(axes.KERNELS)}; fix the header")
		if m.profile not in axes.PROFILES:
			raise MutantError(f"{path}: Profile: '{m.profile}' is none of "
					  f"{' '.join(axes.PROFILES)}; fix the header")
		if m.allocator not in axes.allocators(m.kernel):
			raise MutantError(f"{path}: Allocator: '{m.allocator}' is none of kernel "
					  f"{m.kernel}'s {' '.join(axes.allocators(m.kernel))}; fix the header")
		if not m.what or not m.kills:
			raise MutantError(f'{path}: no Mutant: or Kills: header; add it')
		unknown = sorted(m.kills - cases)
		if unknown:
			raise MutantError(f"{path}: Kills: names {', '.join(unknown)}, not a case "
					  'of the suite (kunit/*.c); fix the header')
		out.append(m)
	return out


def link_copy(src: str, dst: str) -> bool:
	"""Makes dst a hard-linked copy of the patched tree src (without .git
	and O= dirs) unless it already is one of the current series; O= dirs
	inside dst stay. git writes a changed file anew (a new inode), so a
	link never carries a change from one tree into the other. Returns
	whether it copied."""
	with open(os.path.join(src, '.git', 'zsp-series')) as f:
		stamp = f.read()
	mark = os.path.join(dst, '.zsp-copy')
	if os.path.exists(mark):
		with open(mark) as f:
			if f.read() == stamp:
				return False
	os.makedirs(dst, exist_ok=True)
	for e in os.listdir(dst):
		if not e.startswith('o-'):
			p = os.path.join(dst, e)
			shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
	link_tree(src, dst)
	# The copy has no .git: its history's subjects go with it, so that
	# Z6 expects what the patched tree would (Tree.has_commit).
	log = subprocess.run(['git', '-C', src, 'log', '--format=%s', 'HEAD'],
			     capture_output=True, text=True, check=True).stdout
	with open(os.path.join(dst, SUBJECTS), 'w') as f:
		f.write(log)
	with open(mark, 'w') as f:
		f.write(stamp)
	return True


class Copy:
	"""The mutants' copy of the patched tree, one mutant at a time."""

	def __init__(self, s: Settings) -> None:
		self.src = Tree(s, 'patched').src
		self.dst = Tree(s, 'mutant').src
		self.touched = os.path.join(self.dst, TOUCHED)

	def fresh_copies(self, files: List[str]) -> None:
		"""Private copies of the patched tree's files (new inodes with a
		fresh mtime: kbuild recompiles them, nothing is written through a
		link)."""
		for f in files:
			d = os.path.join(self.dst, f)
			if os.path.lexists(d):
				os.unlink(d)
			shutil.copyfile(os.path.join(self.src, f), d)

	def restore(self) -> None:
		"""Puts back the files the last mutant changed."""
		if os.path.exists(self.touched):
			with open(self.touched) as f:
				self.fresh_copies(f.read().split())
			os.unlink(self.touched)

	def apply(self, m: Mutant) -> None:
		"""Git must not find a repository above the copy (the project's,
		when the cache is inside it): from a subdirectory of one, git apply
		would prefix or skip every path, silently."""
		env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(self.dst))
		p = subprocess.run(['git', 'apply', '--numstat', m.path], cwd=self.dst, env=env,
				   capture_output=True, text=True)
		files = [line.split('\t')[2] for line in p.stdout.splitlines()]
		with open(self.touched, 'w') as f:
			f.write('\n'.join(files) + '\n')
		self.fresh_copies(files)
		p = subprocess.run(['git', 'apply', m.path], cwd=self.dst, env=env,
				   capture_output=True, text=True)
		if p.returncode:
			raise MutantError(f'mutant {m.name} does not apply to the series '
					  f'({first_error(p.stderr)}); regenerate it')
		for name in files:
			with open(os.path.join(self.src, name), 'rb') as a, \
			     open(os.path.join(self.dst, name), 'rb') as b:
				if a.read() == b.read():
					raise MutantError(f'mutant {m.name} left {name} unchanged')


def seed_objects(s: Settings, profile: str, alloc: str) -> None:
	"""Starts the copy's O= dir of @alloc as a copy of the patched tree's
	(cp -a: mtimes kept), unless it has one: the control then rebuilds
	what is newer than those objects, not the whole kernel (2-2.5 min a
	control cold, 2026-12-05). Safe for kbuild: in an O= dir inside its
	tree every source path is relative (../mm/slab.c, source -> ..), so
	the copied objects name the copy's sources, which are hard links to
	the patched tree's files, mtimes and all. All but objtool's: tools/
	builds with absolute paths, and a rebuilt objtool, on which every
	object depends, would rebuild the kernel; its records are moved to
	the copy's paths (rehome())."""
	patched = CellBuild(s, 'patched', alloc, profile)
	mutant = CellBuild(s, 'mutant', alloc, profile)
	src, dst = patched.obj, mutant.obj
	if os.path.isdir(dst) or not os.path.isdir(src):
		return
	log(f'mutant-{alloc}: objects from {os.path.relpath(src, s.cache)}')
	tmp = dst + '.tmp'
	shutil.rmtree(tmp, ignore_errors=True)
	subprocess.run(['cp', '-a', src, tmp], check=True)
	rehome(os.path.join(tmp, 'tools'), patched.tree.src + '/', mutant.tree.src + '/')
	os.rename(tmp, dst)


def rehome(top: str, old: str, new: str) -> None:
	"""kbuild's records (.cmd, .d) under @top that name @old name @new,
	their mtimes kept: make compares them with the targets'."""
	for d, _, files in os.walk(top):
		for f in files:
			if not f.endswith(('.cmd', '.d')):
				continue
			path = os.path.join(d, f)
			with open(path, errors='surrogateescape') as fh:
				text = fh.read()
			if old not in text:
				continue
			st = os.stat(path)
			with open(path, 'w', errors='surrogateescape') as fh:
				fh.write(text.replace(old, new))
			os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def judge(out: str, kills: FrozenSet[str] = frozenset()) -> List[str]:
	"""[result, why] of one cell: error when it did not build or boot."""
	err = os.path.join(out, 'error')
	if os.path.exists(err):
		with open(err) as f:
			return ['error', f.read().strip()]
	return list(results.mutant_verdict(results.load_cases(os.path.join(out, 'cell.json')),
					   kills))


def run_one(s: Settings, req: MutantsRequest, name: str, alloc: str,
	    want: str, kills: FrozenSet[str] = frozenset()) -> Tuple[bool, List[str]]:
	"""One cell of the copy as it stands, booting @kills alone (every
	case: the controls); prints its ok/FAIL line."""
	out = os.path.join(req.run, name)
	pipeline.cell(s, CellRequest(tree='mutant', alloc=alloc, out=out, profile=req.profile,
				     modules=results.SUITE_MODULE, only=','.join(sorted(kills)),
				     limits=req.limits))
	result, why = judge(out, kills)
	mark = 'ok  ' if result == want else 'FAIL'
	print(f'{mark} mutant {name} ({alloc}) {result} {why}', flush=True)
	return result == want, [name, alloc, result, why]


def select(every: List[Mutant], kernel: str, profile: str,
	   names: Tuple[str, ...] = ()) -> List[Mutant]:
	"""The mutants of @kernel and @profile (MUTANT=: only @names, each
	of them); an unknown name, one of another kernel or profile, or none
	at all is an error, never an empty run that passes."""
	known = {m.name: m for m in every}
	for n in names:
		if n not in known:
			raise MutantError(f"unknown MUTANT '{n}'; valid: {' '.join(sorted(known))}")
		m = known[n]
		if (m.kernel, m.profile) != (kernel, profile):
			raise MutantError(f'mutant {n} is for KERNEL={m.kernel} PROFILE={m.profile}; '
					  'give those')
	chosen = [m for m in every if (m.kernel, m.profile) == (kernel, profile)
		  and (not names or m.name in names)]
	if not chosen:
		raise MutantError(f'no mutant for KERNEL={kernel} PROFILE={profile} in {MUTANTS}; '
				  'write one (docs/extending.md)')
	return chosen


def main(s: Settings, req: MutantsRequest) -> int:
	return 0 if all(ok for ok, _ in run(s, req)) else 1


def run(s: Settings, req: MutantsRequest) -> List[Tuple[bool, List[str]]]:
	"""(as expected, table row) per cell: the controls and the mutants."""
	chosen = select(load_all(), s.kernel, req.profile, req.mutants)
	os.makedirs(req.run, exist_ok=True)
	patched, copy = Tree(s, 'patched'), Copy(s)
	rows: List[Tuple[bool, List[str]]] = []
	with lock.held(s.cache, lock.to_take([patched.lock, Tree(s, 'mutant').lock])):
		patched.prepare()
		link_copy(copy.src, copy.dst)
		copy.restore()
		# Grouped by allocator: each O= dir rebuilds one file per mutant.
		# The control, the copy without a mutant, must pass in the same
		# harness: otherwise a "kill" could be the harness's doing.
		for alloc in axes.allocators(s.kernel):
			mine = [m for m in chosen if m.allocator == alloc]
			if not mine:
				continue
			log(f'mutant control on {alloc}: the series as it is must pass')
			seed_objects(s, req.profile, alloc)
			rows.append(run_one(s, req, f'control-{alloc}', alloc, 'survived'))
			for m in mine:
				log(f'mutant {m.name} on {alloc}: {m.what}')
				copy.apply(m)
				try:
					rows.append(run_one(s, req, m.name, alloc, 'killed', m.kills))
				finally:
					copy.restore()
	with open(os.path.join(req.run, 'mutants.tsv'), 'w') as f:
		f.writelines('\t'.join(r) + '\n' for _, r in rows)
	text, ok = results.mutant_table([r for _, r in rows])
	with open(os.path.join(req.run, 'mutants.txt'), 'w') as f:
		f.write(text + '\n')
	print(text, file=sys.stderr)
	if not ok and not rows:
		rows.append((False, ['mutants', '-', 'error', 'no mutant ran']))
	return rows
