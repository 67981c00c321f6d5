# SPDX-License-Identifier: GPL-2.0
"""The kernel side of a cell: Tree (unpack, git base, series) and CellBuild (config, kernel, module, initramfs).

The kernel side of a cell: its tree, the series, the config, the
kernel build, the test module and the initramfs, as kunit_kernel.py's
LinuxSourceTree owns a kunit.py build.

Layout, all under the cache directory (for the default kernel and
profile; another kernel's trees are src/KERNEL/TREE, another profile's
O= dirs o-ALLOC-PROFILE, and mod/ uses the cell's name, axes.Cell.name):
  src/TREE                  the tarball, unpacked; "patched" is a git repo
                            (zsp-base + one commit per patch, branch
                            zsp-series); "mutant" is zsp mutants' copy
  src/TREE/o-ALLOC          the cell's O= dir (inside the tree, so that
                            kbuild's command lines, and ccache's keys, are
                            the same for every tree)
  src/TREE/o-ALLOC.kconfig  the scratch O= dir the config is merged in
  mod/TREE-ALLOC            the test modules, built out of tree (M=)
  ccache                    the compiler cache every build shares
  locks/src-TREE.lock       a run's hold on a tree (lock.py)

Each step skips itself when its inputs are unchanged (a stamp, see
cache.Stamp) unless "fresh" is set, and raises a KernelError subclass
whose message is the one line a user needs.
"""

import glob
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import axes, callsites, console, qemu, series
from .cache import Stamp, digest
from .errors import BuildError, ConfigError, SeriesError, TreeError
from .progress import BuildProgress, compiled, log
from .settings import Settings

# Upstream's tests, run as a regression gate where the config builds them:
# before the suite; those that corrupt the heap on purpose (KASAN's and
# KFENCE's, which also make kmemleak give up) after it and its leak scan.
# KASAN's last: guest-init turns KFENCE off for it (guest-init says why).
# Each is the config option that builds it and where kernels put it (7.x
# moved slub_kunit to lib/tests/): a config that sets the option and
# builds the module at none of its paths is a build error, never a
# module that silently does not run.
@dataclass(frozen=True)
class Upstream:
	option: str
	paths: Tuple[str, ...]

	@property
	def name(self) -> str:
		return os.path.basename(self.paths[0])[:-len('.ko')]


UPSTREAM_BEFORE = (Upstream('TEST_MEMINIT', ('lib/test_meminit.ko',)),
		   Upstream('SLUB_KUNIT_TEST', ('lib/slub_kunit.ko', 'lib/tests/slub_kunit.ko')))
UPSTREAM_AFTER = (Upstream('KFENCE_KUNIT_TEST', ('mm/kfence/kfence_test.ko',)),
		  Upstream('KASAN_KUNIT_TEST', ('mm/kasan/kasan_test.ko',)))
UPSTREAM_MODULES = UPSTREAM_BEFORE + UPSTREAM_AFTER
SUITE_MODULES = ('zero_size_plan.ko', 'zero_size_test.ko', 'zero_size_bench.ko')
GIT_ID = ['-c', 'user.name=zsp', '-c', 'user.email=zsp@localhost']
# In a copy of a git tree without its .git: the history's subjects.
SUBJECTS = '.zsp-subjects'



def first_error(text: str, pattern: str = 'error:') -> str:
	"""The first line containing pattern, else the last line: the one line
	of a tool's output worth putting in an error message."""
	lines = text.splitlines()
	for line in lines:
		if pattern in line:
			return line.strip()
	return lines[-1].strip() if lines else ''


# How long a step's command gets to clean up after SIGTERM (make deletes
# the targets it was writing) before it is killed.
STOP_GRACE_S = 60


def run(cmd: List[str], cwd: Optional[str] = None, env: Optional[Dict[str, str]] = None,
	log_file: Optional[str] = None, append: bool = False
	) -> subprocess.CompletedProcess[str]:
	"""Runs cmd; its output goes to log_file (appended to, with append) or
	is returned. Interrupted (SIGINT, or SIGTERM turned into SystemExit),
	it passes SIGTERM on and waits for cmd to end: make then removes its
	half-written targets and git its index.lock, as they do when a shell
	script around them is stopped."""
	full_env = dict(os.environ, **(env or {}))
	out = open(log_file, 'a' if append else 'w') if log_file else None
	try:
		p = subprocess.Popen(cmd, cwd=cwd, env=full_env, text=True, errors='replace',
				     stdout=out or subprocess.PIPE,
				     stderr=subprocess.STDOUT if out else subprocess.PIPE)
		try:
			stdout, stderr = p.communicate()
		except BaseException:
			p.terminate()
			try:
				p.wait(STOP_GRACE_S)
			except subprocess.TimeoutExpired:
				p.kill()
				p.wait()
			raise
	finally:
		if out:
			out.close()
	if log_file:
		with open(log_file, errors='replace') as f:
			stdout, stderr = f.read(), ''
	return subprocess.CompletedProcess(cmd, p.returncode, stdout or '', stderr or '')


def merge_fragments(src: str, scratch: str, fragments: List[str], log_file: str,
		    what: str) -> None:
	"""scratch/.config = tinyconfig + fragments (in order, a later one
	wins), by the tree's merge_config.sh, then olddefconfig: the one
	recipe of every cell's config and of the profile split's trials."""
	for cmd in (['make', '-s', '-C', src, f'O={scratch}', 'tinyconfig'],
		    [os.path.join(src, 'scripts/kconfig/merge_config.sh'), '-m', '-O', scratch,
		     os.path.join(scratch, '.config')] + fragments,
		    ['make', '-s', '-C', src, f'O={scratch}', 'olddefconfig']):
		p = run(cmd, log_file=log_file, append=True)
		if p.returncode:
			raise ConfigError(f'{what}: {first_error(p.stdout, "rror")}; log: {log_file}')


def link_tree(src: str, dst: str, skip: Tuple[str, ...] = ()) -> None:
	"""dst/ gets every entry of the tree src/ as hard links (cp -al),
	but its .git, its O= dirs (o-*) and the entries starting with one of
	@skip: the one recipe of the patched tree from vanilla and of the
	mutants' copy from the patched tree."""
	for e in os.listdir(src):
		if e == '.git' or e.startswith(('o-',) + skip):
			continue
		p = run(['cp', '-al', os.path.join(src, e), dst + '/'])
		if p.returncode:
			raise TreeError(f'cannot link {src} into {dst}: {first_error(p.stderr, "cp")}')


class Tree:
	"""One kernel source tree in the cache."""

	def __init__(self, s: Settings, name: str) -> None:
		self.s = s
		self.name = name
		self.src = os.path.join(s.cache, 'src', name)
		self.lock = f'src-{name}'
		if s.kernel != axes.DEFAULT_KERNEL:
			self.src = os.path.join(s.cache, 'src', s.kernel, name)
			self.lock = f'src-{s.kernel}-{name}'

	def git(self, *args: str, env: Optional[Dict[str, str]] = None
		) -> subprocess.CompletedProcess[str]:
		return run(['git', '-C', self.src] + GIT_ID + list(args), env=env)

	def unpack(self) -> None:
		if os.path.exists(os.path.join(self.src, '.zsp-unpacked')):
			return
		tmp = self.src + '.tmp'
		shutil.rmtree(self.src, ignore_errors=True)
		shutil.rmtree(tmp, ignore_errors=True)
		os.makedirs(tmp)
		pristine = Tree(self.s, 'vanilla')
		if self.name != pristine.name and os.path.exists(os.path.join(pristine.src,
									      '.zsp-unpacked')):
			self.link_from(pristine, tmp)
		else:
			self.check_tarball()
			log(f'unpack {self.s.tarball} -> {self.src}')
			p = run(['tar', '-xf', self.s.tarball, '-C', tmp, '--strip-components=1'])
			if p.returncode:
				raise TreeError(f'cannot unpack {self.s.tarball}: '
						f'{first_error(p.stderr, "tar")}')
		open(os.path.join(tmp, '.zsp-unpacked'), 'w').close()
		os.rename(tmp, self.src)

	def check_tarball(self) -> None:
		if not os.access(self.s.tarball, os.R_OK):
			k = axes.KERNELS[self.s.kernel]
			how = (f'make deps CACHE={self.s.cache} fetches {k.package} ({k.suite})'
			       if k.suite else f'install it: apt-get install {k.package}')
			raise TreeError(f'{self.s.tarball} is missing; {how}')

	def link_from(self, pristine: 'Tree', tmp: str) -> None:
		"""tmp = the unpacked vanilla tree, hard-linked (its O= dirs and
		marker left out): a kernel tree is 1.5-2 GiB, and CI's disk is
		shared and finite. Safe because nothing writes a source file in
		place: git apply, am and checkout unlink a file and write it anew,
		kbuild writes only in O=, and the mutants' copy does the same
		(mutants.Copy.fresh_copies)."""
		log(f'link {pristine.src} -> {self.src}')
		link_tree(pristine.src, tmp, (self.s.obj_prefix, '.zsp-unpacked'))

	def kernelversion(self) -> str:
		return run(['make', '-s', '-C', self.src, 'kernelversion']).stdout.strip()

	def has_commit(self, subject: str) -> bool:
		"""Whether the checked-out history has a commit of this subject.
		Only a tree's own history counts: its .git (the patched tree, its
		bisect steps), or the subjects a copy of one carries (SUBJECTS:
		the mutants' copy); the cache may sit in the repository's
		checkout, whose git must not answer for the tarball."""
		if os.path.isdir(os.path.join(self.src, '.git')):
			p = self.git('log', '--format=%s', 'HEAD')
			return p.returncode == 0 and subject in p.stdout.splitlines()
		try:
			with open(os.path.join(self.src, SUBJECTS)) as f:
				return subject in f.read().splitlines()
		except FileNotFoundError:
			return False

	def git_base(self) -> None:
		"""The tarball as commit zsp-base. Its .gitignore ignores everything
		at the top level: add -f."""
		if self.git('rev-parse', '-q', '--verify', 'zsp-base').returncode == 0:
			return
		log(f'git init {self.src} (base commit)')
		steps = [['init', '-q'],
			 # The first commit leaves ~80k loose objects, and git's auto
			 # gc would then detach a daemon that repacks for minutes.
			 ['config', 'gc.auto', '0'], ['config', 'maintenance.auto', 'false'],
			 ['add', '-f', '-A'],
			 ['commit', '-q', '-m', f'{axes.KERNELS[self.s.kernel].package} '
			  f'{self.kernelversion()}'],
			 ['tag', 'zsp-base']]
		for args in steps:
			p = self.git(*args)
			if p.returncode:
				raise TreeError(f'git {args[0]} in {self.src}: {first_error(p.stderr)}')

	def check_series(self, patches: List[str]) -> None:
		"""Applies every patch, in order, to a scratch index of zsp-base
		(no file is touched), so that a patch that does not apply is named
		with its file before the tree is changed at all."""
		with tempfile.NamedTemporaryFile() as idx:
			env = {'GIT_INDEX_FILE': idx.name}
			p = self.git('read-tree', 'zsp-base', env=env)
			if p.returncode:
				raise TreeError(f'git read-tree zsp-base in {self.src}: {first_error(p.stderr)}')
			for patch in patches:
				p = self.git('apply', '--cached', patch, env=env)
				if p.returncode:
					raise SeriesError(f'patch {series.name(self.s.patches, patch)} does not '
							  f'apply to {series.failed_file(p.stderr)}: '
							  f'{first_error(p.stderr, "error")}')

	def apply_series(self) -> None:
		"""git am every patch onto zsp-base, one commit each, unless this
		exact series is applied already. A file whose content the
		re-application did not change keeps its mtime, so that kbuild
		rebuilds only what an edited patch really changed."""
		patches = series.files(self.s.patches)
		stamp = Stamp(os.path.join(self.src, '.git', 'zsp-series'))
		key = series.digest(self.s.patches)
		if stamp.holds(key):
			return
		self.check_series(patches)
		stamp.clear()
		self.git('am', '--abort')
		old = self.git('rev-parse', 'HEAD').stdout.strip()
		changed = self.git('diff', '--name-only', 'zsp-base', 'HEAD').stdout.split()
		mtimes = {f: os.stat(os.path.join(self.src, f)).st_mtime_ns for f in changed
			  if os.path.exists(os.path.join(self.src, f))}
		self.git('bisect', 'reset')
		# A hard-linked copy of the tree (zsp mutants, make bench's peer)
		# changes every file's ctime; checkout -f would take each for a
		# local change and write it anew, and kbuild would then rebuild
		# the whole kernel. Content and mtime are what tell a change here.
		self.git('config', 'core.trustctime', 'false')
		p = self.git('checkout', '-q', '-f', '-B', 'zsp-series', 'zsp-base')
		if p.returncode:
			raise TreeError(f'git checkout zsp-base in {self.src}: {first_error(p.stderr)}')
		for patch in patches:
			p = self.git('am', '-q', patch)
			if p.returncode:
				self.git('am', '--abort')
				raise SeriesError(f'patch {series.name(self.s.patches, patch)} does not apply '
						  f'to {series.failed_file(p.stdout + p.stderr)} '
						  f'({first_error(p.stdout + p.stderr, "error")})')
		for f, mtime in mtimes.items():
			path = os.path.join(self.src, f)
			if not os.path.exists(path):
				continue
			same = [self.git('rev-parse', '-q', '--verify', f'{rev}:{f}').stdout
				for rev in (old, 'HEAD')]
			if same[0] and same[0] == same[1]:
				os.utime(path, ns=(mtime, mtime))
		log(f'applied {len(patches)} patch(es) to {self.src}')
		stamp.set(key)

	def prepare(self, timings: Optional[str] = None) -> str:
		"""Makes the tree exist (and for "patched", the series applied);
		returns its path."""
		os.makedirs(os.path.dirname(self.src), exist_ok=True)
		with StageTimer(timings, 'extract'):
			self.unpack()
		if self.name == 'patched':
			with StageTimer(timings, 'patch'):
				self.git_base()
				self.apply_series()
		return self.src


class StageTimer:
	"""with StageTimer(path, stage): appends "stage seconds" to path (if any),
	for make bench."""

	def __init__(self, path: Optional[str], stage: str) -> None:
		self.path = path
		self.stage = stage

	def __enter__(self) -> None:
		self.t0 = time.monotonic()

	def __exit__(self, *exc: object) -> None:
		if self.path and exc[0] is None:
			with open(self.path, 'a') as f:
				f.write(f'{self.stage} {time.monotonic() - self.t0:.2f}\n')


# A profile's allocator fragment names, on one line starting so, the
# profile's options that the allocator does not have (zsp/profiles.py).
NA_PREFIX = '# n/a: '
# A profile's fragment names, on one line starting so, the options of
# its table that this kernel's Kconfig does not define at all (MEMCG_KMEM
# after 6.9, DEBUG_SLAB after 6.7): dropped, not an error (profiles.py).
ABSENT_PREFIX = '# not in this kernel: '


def fragment(s: Settings, name: str) -> str:
	"""configs/KERNEL/@name where the kernel has its own (make
	profile-configs KERNEL= writes them from that kernel's Debian config
	and Kconfig), else configs/@name."""
	own = os.path.join(s.configs, s.kernel, name)
	return own if os.path.exists(own) else os.path.join(s.configs, name)


def listed(path: str, prefix: str) -> List[str]:
	"""The options on a fragment's line that starts with @prefix, if it
	has one."""
	if os.path.exists(path):
		with open(path) as f:
			for line in f:
				if line.startswith(prefix):
					return line[len(prefix):].split()
	return []


def absent(path: str) -> List[str]:
	"""The options on the "# not in this kernel:" line of a fragment."""
	return listed(path, ABSENT_PREFIX)


def not_available(path: str) -> List[str]:
	"""The options on the "# n/a:" line of a fragment, if it has one."""
	return listed(path, NA_PREFIX)


def wanted(fragments: List[str]) -> Dict[str, str]:
	"""Option -> the line ("CONFIG_X=v" or "# CONFIG_X is not set") of the
	last fragment that names it."""
	want: Dict[str, str] = {}
	for frag in fragments:
		with open(frag) as f:
			for line in f.read().splitlines():
				line = line.strip()
				if line.startswith('CONFIG_') and '=' in line:
					want[line.split('=', 1)[0]] = line
				elif line.startswith('# CONFIG_') and line.endswith(' is not set'):
					want[line[2:].split()[0]] = line
	return want


# A kernel build's ccache hits and compiler calls, in the cell's directory.
CCACHE_FILE = 'ccache'


def ccache_stats(ccache_dir: str) -> Dict[str, int]:
	"""ccache's counters (ccache --print-stats: "name<TAB>value")."""
	p = subprocess.run(['ccache', '--print-stats'], capture_output=True, text=True,
			   env=dict(os.environ, CCACHE_DIR=ccache_dir))
	out: Dict[str, int] = {}
	for line in p.stdout.splitlines():
		name, _, value = line.partition('\t')
		if value.strip().isdigit():
			out[name] = int(value)
	return out


def ccache_hits(before: Dict[str, int], after: Dict[str, int]) -> Tuple[int, int]:
	"""(hits, cacheable calls) between two readings: one build's, as
	builds run one at a time."""
	def delta(name: str) -> int:
		return after.get(name, 0) - before.get(name, 0)
	hits = delta('direct_cache_hit') + delta('preprocessed_cache_hit')
	return hits, hits + delta('cache_miss')


BUILD_OBJECTS = os.path.join(axes.MATRIX, 'build-objects.txt')


def recorded_objects(kernel: str, profile: str, alloc: str,
		     path: str = BUILD_OBJECTS) -> Optional[int]:
	"""The cell's count in BUILD_OBJECTS, else the largest of its kernel
	and profile; None if it has neither."""
	exact, same = None, []
	try:
		with open(path) as f:
			for line in f:
				fields = line.split()
				if len(fields) != 4 or line.startswith('#'):
					continue
				if fields[:2] == [kernel, profile]:
					same.append(int(fields[3]))
					if fields[2] == alloc:
						exact = int(fields[3])
	except (OSError, ValueError):
		return None
	if exact is not None:
		return exact
	return max(same) if same else None


class CellBuild:
	"""The build side of one cell: (tree, allocator) in one kernel and
	profile. Owns the cell's paths and its config/kernel/module/initramfs
	steps."""

	def __init__(self, s: Settings, tree: str, alloc: str,
		     profile: str = axes.DEFAULT_PROFILE) -> None:
		self.s = s
		self.tree = Tree(s, tree)
		self.alloc = alloc
		self.profile = axes.PROFILES[profile]
		suffix = '' if profile == axes.DEFAULT_PROFILE else f'-{profile}'
		self.obj = os.path.join(self.tree.src, s.obj_prefix + alloc + suffix)
		# zsp mutants' tree is no tree of the matrix: named as such.
		self.name = f'{tree}-{alloc}' if tree == 'mutant' else \
			axes.Cell(s.kernel, tree, profile, alloc).name
		self.mod = os.path.join(s.cache, 'mod', self.name)

	@property
	def bzimage(self) -> str:
		return os.path.join(self.obj, qemu.X86_64.kernel_image)

	@property
	def initramfs(self) -> str:
		return os.path.join(self.obj, 'zsp-initramfs.cpio')

	@property
	def gen_init_cpio(self) -> str:
		return os.path.join(self.obj, 'usr/gen_init_cpio')

	@property
	def kunit_tool(self) -> str:
		return os.path.join(self.tree.src, 'tools/testing/kunit/kunit.py')

	@property
	def fragments(self) -> List[str]:
		"""The profile's, its options for this allocator alone if it has
		any (configs/PROFILE-ALLOC.config), then the allocator's; each
		from the kernel's own directory where it has one (fragment())."""
		paths = [fragment(self.s, n) for n in self.profile.fragments]
		own = self.profile_alloc_fragment
		return paths + ([own] if os.path.exists(own) else []) + \
			[fragment(self.s, f'{self.alloc}.config')]

	@property
	def profile_alloc_fragment(self) -> str:
		# Beside the profile's own fragment: a kernel's distro split is
		# one whole, never its distro.config with 6.1's distro-slub.config.
		where = os.path.dirname(fragment(self.s, f'{self.profile.name}.config'))
		return os.path.join(where, f'{self.profile.name}-{self.alloc}.config')

	@property
	def not_available(self) -> List[str]:
		"""The profile's options this allocator does not have."""
		return not_available(self.profile_alloc_fragment)

	def ccache_dir(self) -> str:
		return os.environ.get('CCACHE_DIR', os.path.join(self.s.cache, 'ccache'))

	def default_modules(self) -> List[str]:
		"""Upstream's test modules this config built, the suite and (a
		kernel with kmemleak) guest-init's leak report, in UPSTREAM_*'s
		order; last, the callsites report of a profile that counts them."""
		with open(os.path.join(self.obj, '.config')) as f:
			config = f.read()
		leak = 'CONFIG_DEBUG_KMEMLEAK=y\n' in config

		def built(mods: Tuple[Upstream, ...]) -> List[str]:
			return [m.name for m in mods if self.upstream_path(m, config)]
		return (built(UPSTREAM_BEFORE) + ['zero_size_test']
			+ ([console.KMEMLEAK_MODULE] if leak else []) + built(UPSTREAM_AFTER)
			+ ([callsites.MODULE] if self.profile.callsites else []))

	def upstream_path(self, m: Upstream, config: str) -> str:
		"""Where this cell's kbuild put upstream test @m ('': the config
		does not build it as a module)."""
		for path in m.paths:
			if os.path.exists(os.path.join(self.obj, path)):
				return path
		if f'CONFIG_{m.option}=m\n' in config:
			raise BuildError(f'CONFIG_{m.option}=m built no module at {" or ".join(m.paths)}; '
					 'add where this kernel puts it to kernel.UPSTREAM_*')
		return ''

	# -- config ------------------------------------------------------------

	def config(self) -> None:
		"""O/.config = tinyconfig + the profile's fragments + ALLOC's,
		merged by the tree's merge_config.sh, every option checked."""
		src = self.tree.src
		# What the merge reads: the fragments, the compiler (Kconfig tests
		# it), and in a git tree the Kconfig files, tinyconfig's fragments
		# and kconfig itself as committed. A patch to slub.c leaves them.
		parts = [open(f, 'rb').read() for f in self.fragments]
		parts.append(gcc_version().encode())
		if os.path.isdir(os.path.join(src, '.git')):
			parts.append(self.tree.git('ls-files', '-s', '--', '*Kconfig*', 'kernel/configs/*',
						   'arch/x86/configs/*', 'scripts/kconfig/*').stdout.encode())
		stamp = Stamp(os.path.join(self.obj, '.zsp-config'))
		key = digest(parts)
		if stamp.holds(key) and os.path.exists(os.path.join(self.obj, '.config')):
			return
		# Merged in a scratch O= dir (named like the build dir, so the
		# build's source scan skips it): tinyconfig in the build dir itself
		# would pass through other values of many options, and kbuild's
		# syncconfig would touch their dependency files and rebuild most
		# of the kernel even when the merged result is the same.
		scratch = self.obj + '.kconfig'
		os.makedirs(self.obj, exist_ok=True)
		os.makedirs(scratch, exist_ok=True)
		stamp.clear()
		merge_log = os.path.join(self.obj, '.zsp-merge.log')
		open(merge_log, 'w').close()
		merge_fragments(src, scratch, self.fragments, merge_log,
				f'config of {self.tree.name}/{self.alloc}')
		self.verify(os.path.join(scratch, '.config'))
		merged = os.path.join(scratch, '.config')
		target = os.path.join(self.obj, '.config')
		if not os.path.exists(target) or open(merged, 'rb').read() != open(target, 'rb').read():
			shutil.copyfile(merged, target)
		stamp.set(key)

	def verify(self, config: str) -> None:
		"""Every option the fragments set is in config as the last fragment
		that names it wrote it (merge_config.sh's rule: a later fragment
		overrides an earlier one); every "is not set" option is unset."""
		with open(config) as f:
			have = set(f.read().splitlines())
		set_opts = {line.split('=', 1)[0] for line in have if line.startswith('CONFIG_')}
		bad = []
		for opt, line in wanted(self.fragments).items():
			if line.startswith('CONFIG_') and line not in have:
				bad.append(line)
			elif line.startswith('# ') and opt in set_opts:
				bad.append(f'{opt}(unset)')
		if bad:
			raise ConfigError(f"olddefconfig dropped or changed: {' '.join(bad)} "
					  f'(check their dependencies in {self.s.configs})')

	# -- kernel ------------------------------------------------------------

	def build(self, log_file: str) -> None:
		"""bzImage and modules in the O= dir, incremental, through ccache."""
		stamp = Stamp(os.path.join(self.obj, '.zsp-built'))
		key = digest([open(os.path.join(self.obj, '.config'), 'rb').read(),
			      gcc_version().encode()])
		if not self.s.fresh and self.up_to_date(stamp, key):
			with open(log_file, 'w') as f:
				f.write(f'up to date: {stamp.path}\n')
			return
		stamp.clear()
		# Stamped with the start time: an edit made during the build is newer.
		started = Stamp(stamp.path + '.new')
		started.set(key)
		env = {'CCACHE_DIR': self.ccache_dir(),
		       # Kernel builds are reproducible enough that a shared cache
		       # pays off across trees; the timestamp would defeat it.
		       'KBUILD_BUILD_TIMESTAMP': os.environ.get('KBUILD_BUILD_TIMESTAMP', 'zsp'),
		       'KBUILD_BUILD_USER': 'zsp', 'KBUILD_BUILD_HOST': 'zsp'}
		before = ccache_stats(env['CCACHE_DIR'])
		with BuildProgress(self.name, log_file, self.expected_objects()):
			p = run(['make', '-C', self.tree.src, f'O={self.obj}', f'-j{self.s.jobs}',
				 'CC=ccache gcc', 'bzImage', 'modules'], env=env, log_file=log_file)
		hits, calls = ccache_hits(before, ccache_stats(env['CCACHE_DIR']))
		# Beside the build log: the cell's summary line reads it.
		with open(os.path.join(os.path.dirname(log_file), CCACHE_FILE), 'w') as f:
			f.write(f'{hits} {calls}\n')
		log(f'{self.name}: kernel: ccache {hits}/{calls} hits'
		    + (f' ({100 * hits // calls}%)' if calls else ''))
		if p.returncode:
			why = first_error(p.stdout, 'error:')
			if 'error:' not in why:
				why = next((ln.strip() for ln in p.stdout.splitlines()
					    if 'Error ' in ln), why)
			raise BuildError(f'build of {self.tree.name}/{self.alloc} failed: {why}; '
					 f'log: {log_file}')
		os.replace(started.path, stamp.path)
		self.record_objects(compiled(log_file))

	OBJECTS = '.zsp-objects'

	def expected_objects(self) -> Optional[int]:
		"""How many objects a whole build of this cell compiles, as the
		biggest build of it, or of the same cell of the other tree, counted
		(a total for the progress line); before the first, as counted on
		another machine (BUILD_OBJECTS); None where neither knows."""
		counts = []
		for t in ('vanilla', 'patched'):
			path = os.path.join(Tree(self.s, t).src, os.path.basename(self.obj), self.OBJECTS)
			try:
				with open(path) as f:
					counts.append(int(f.read()))
			except (OSError, ValueError):
				pass
		if counts:
			return max(counts)
		return recorded_objects(self.s.kernel, self.profile.name, self.alloc)

	def record_objects(self, n: int) -> None:
		"""Keeps the count of the biggest build: an incremental one
		compiles a few objects, not what a whole build does."""
		path = os.path.join(self.obj, self.OBJECTS)
		try:
			with open(path) as f:
				if int(f.read()) >= n:
					return
		except (OSError, ValueError):
			pass
		with open(path, 'w') as f:
			f.write(f'{n}\n')

	def up_to_date(self, stamp: 'Stamp', key: str) -> bool:
		"""The last good build used this config and no source file has
		changed since it started: then kbuild's own walk of the tree (5 s
		per cell here) is skipped."""
		if not stamp.holds(key) or not os.path.exists(self.bzimage):
			return False
		src = self.tree.src
		# -mindepth 1: not the top directory itself, whose mtime every
		# cell's new O= dir renews; what lies in it still counts.
		p = run(['find', src, '-mindepth', '1', '(', '-path', f'{src}/.git', '-o', '-path',
			 f'{src}/{self.s.obj_prefix}*', '-o', '-path', f'{src}/o-*', ')', '-prune',
			 '-o', '-newer', stamp.path, '-print', '-quit'])
		# Only what find prints counts: an unreadable path is no change.
		return not p.stdout.strip()

	# -- test module -------------------------------------------------------

	def module(self, log_file: str) -> None:
		"""The test modules, out of tree against this kernel. The sources
		are copied into the cell's own dir: M= writes objects beside them."""
		kunit = os.path.join(self.s.root, 'kunit')
		sources = [os.path.join(kunit, 'Kbuild')] + sorted(
			glob.glob(os.path.join(kunit, '*.[ch]')))
		os.makedirs(self.mod, exist_ok=True)
		# The module depends on its sources and on the kernel (headers,
		# exports). The kernel's build stamp is renewed whenever kbuild ran
		# there; while it stands, make's 2 s of modpost and checks are skipped.
		parts = [open(f, 'rb').read() for f in sources]
		for name in ('.zsp-built', 'Module.symvers'):
			path = os.path.join(self.obj, name)
			parts.append(f'{path} {os.stat(path).st_mtime_ns}'.encode())
		stamp = Stamp(os.path.join(self.mod, '.zsp-built'))
		key = digest(parts)
		if (not self.s.fresh and stamp.holds(key)
		    and os.path.exists(os.path.join(self.mod, 'zero_size_test.ko'))):
			with open(log_file, 'w') as out:
				out.write(f'up to date: {stamp.path}\n')
			return
		stamp.clear()
		for source in sources:
			shutil.copy2(source, self.mod)
		p = run(['make', '-C', self.tree.src, f'O={self.obj}', f'M={self.mod}',
			 'CC=ccache gcc', 'modules'], env={'CCACHE_DIR': self.ccache_dir()},
			log_file=log_file)
		if p.returncode:
			raise BuildError(f'test module build against {self.tree.name}/{self.alloc} '
					 f'failed: {first_error(p.stdout)}; log: {log_file}')
		stamp.set(key)

	# -- initramfs ---------------------------------------------------------

	def make_initramfs(self) -> None:
		"""busybox-static, /init and the test modules, written by the
		tree's usr/gen_init_cpio (no root needed for /dev/console). The
		per-boot plan is a second archive the boot appends."""
		if not os.access(self.s.busybox, os.X_OK):
			raise BuildError(f'{self.s.busybox} is missing; install it: '
					 'apt-get install busybox-static')
		spec = ['dir /dev 0755 0 0', 'nod /dev/console 0600 0 0 c 5 1',
			'dir /proc 0755 0 0', 'dir /sys 0755 0 0', 'dir /bin 0755 0 0',
			'dir /etc 0755 0 0', 'dir /etc/zsp 0755 0 0', 'dir /lib 0755 0 0',
			'dir /lib/modules 0755 0 0',
			f'file /bin/busybox {self.s.busybox} 0755 0 0',
			f"file /init {os.path.join(self.s.root, 'matrix', 'guest-init')} 0755 0 0"]
		spec += [f'file /lib/modules/{m} {os.path.join(self.mod, m)} 0644 0 0'
			 for m in SUITE_MODULES]
		with open(os.path.join(self.obj, '.config')) as f:
			config = f.read()
		paths = [p for p in (self.upstream_path(m, config) for m in UPSTREAM_MODULES) if p]
		spec += [f'file /lib/modules/{os.path.basename(p)} {os.path.join(self.obj, p)} 0644 0 0'
			 for p in paths]
		out = self.initramfs
		with open(out + '.spec', 'w') as f:
			f.write('\n'.join(spec) + '\n')
		# -t: fixed times for the dirs, so that unchanged inputs give the
		# same archive (cache.py hashes it).
		with open(out + '.tmp', 'wb') as f:
			p = subprocess.run([self.gen_init_cpio, '-t', '0', out + '.spec'], stdout=f,
					   stderr=subprocess.PIPE, text=True, check=False)
		if p.returncode:
			raise BuildError(f'initramfs of {self.tree.name}/{self.alloc}: '
					 f'{first_error(p.stderr)}')
		os.replace(out + '.tmp', out)


_GCC: List[str] = []


def gcc_version() -> str:
	"""gcc --version's first line (the compiler is an input of every step)."""
	if not _GCC:
		out = run(['gcc', '--version']).stdout
		_GCC.append(out.splitlines()[0] if out else '')
	return _GCC[0]
