# SPDX-License-Identifier: GPL-2.0
"""make profile-configs: configs/PROFILE*.config of the distro, debug and
leak profiles, allocator by allocator as the tree's Kconfig decides.

The distro profile is the tiny profile plus the slab-relevant options of
Debian 12's kernel, set as Debian sets them: DISTRO says which options and
why each matters to the zero-size contract; their values come from the
Debian package linux-config-6.1 (config.amd64_none_amd64.xz), so that a
newer Debian config refreshes the fragments with one command. The debug
profile is the tiny profile plus the kernel's memory debuggers, as kernel
developers run them: DEBUG gives options and values; the leak profile,
kmemleak, is apart from it (LEAK says why).

Which allocator has which option is asked of the tree's own Kconfig: the
options are merged (merge_config.sh) onto tinyconfig + base.config + each
allocator's fragment, and olddefconfig decides. An option every allocator
keeps goes to configs/PROFILE.config; one that only some keep goes to
configs/PROFILE-ALLOC.config of each that does (SLUB_CPU_PARTIAL: SLUB
only); the others' file names it on its "# n/a:" line (MEMCG_KMEM is not
there with SLOB), which the table shows under the profile
(kernel.not_available()). An option that no allocator keeps is an error.
"""

import glob
import lzma
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Set, Tuple

from . import axes, lock
from .kernel import ABSENT_PREFIX, NA_PREFIX, Tree, fragment as fragment_path, \
	merge_fragments, wanted
from .errors import ConfigError
from .settings import Settings


# (option, why the contract cares), in the order the fragment lists them.
DISTRO: Tuple[Tuple[str, str], ...] = (
	('CGROUPS', 'memory cgroups need the cgroup core'),
	('MEMCG', 'the memcg charge hooks on every slab allocation and free'),
	('MEMCG_KMEM', 'slab objects charged to a cgroup: memcg_slab_free_hook() is where '
	 'the v6.0 SLUB kfree_bulk() regression came from (b77d5b1b83e3)'),
	('NUMA', 'per-node slab lists, node-aware kmalloc and the node paths of every free'),
	('ACPI', 'the guest learns its two NUMA nodes from ACPI SRAT, as on hardware'),
	('PCI', 'X86_64_ACPI_NUMA depends on it'),
	('ACPI_NUMA', 'NUMA detection from SRAT'),
	('X86_64_ACPI_NUMA', 'NUMA detection from SRAT on x86_64'),
	('PREEMPT_VOLUNTARY', "Debian's default preemption model"),
	('PREEMPT_LAZY', "Debian's preemption model since Linux 6.13 (trixie's kernels)"),
	('PREEMPT_DYNAMIC', 'preempt= at boot, as Debian ships it'),
	('PREEMPT_RCU', 'preemptible RCU: the kvfree_rcu() batching that Debian runs'),
	('SLAB_FREELIST_RANDOM', 'randomised freelists: objects of one slab out of order'),
	('SLAB_FREELIST_HARDENED', 'freelist pointer checks on every free'),
	('SHUFFLE_PAGE_ALLOCATOR', 'page allocator randomisation under every slab'),
	('HARDENED_USERCOPY', 'usercopy checks of slab objects (check_heap_object())'),
	('INIT_ON_ALLOC_DEFAULT_ON', 'zeroing on allocation, on by default in Debian'),
	('SLAB_MERGE_DEFAULT', 'cache merging: a zero-size cache must not alias another'),
	('SLUB_CPU_PARTIAL', "SLUB's per-CPU partial lists, on the bulk free path"),
	('SLUB_DEBUG', 'SLUB debugging compiled in (off until slub_debug=)'),
	('ZONE_DMA', 'the kmalloc-dma caches exist'),
	('RANDOM_KMALLOC_CACHES', 'several copies of each kmalloc cache, picked per call site '
	 '(6.6-7.x)'),
	('KMALLOC_PARTITION_CACHES', "RANDOM_KMALLOC_CACHES' successor (7.x)"),
	('SLAB_BUCKETS', "kmem_buckets: kmalloc's caches apart for user-controlled sizes (6.11+)"),
	('FTRACE', 'tracing: the kmem events (kmalloc, kfree, ...)'),
	('FUNCTION_TRACER', "Debian's tracer; selects the event tracing the kmem events need"),
	('DYNAMIC_FTRACE', 'as Debian: no cost while tracing is off'),
	('EVENT_TRACING', 'the kmem tracepoints as trace events'),
	('KPROBES', "make callsites: the kmem events never see a 0-byte request in 6.1 "
	 "(__do_kmalloc_node() returns ZERO_SIZE_PTR before trace_kmalloc())"),
	('KPROBE_EVENTS', 'make callsites: kprobe events on __kmalloc*() with size == 0'),
	('HIST_TRIGGERS', 'make callsites: a count per caller in the guest, which no '
	 'trace buffer would hold (a suite run asks for 0 bytes 135,217 times)'),
)

# (option=value, why): the debuggers a slab maintainer asks about. Where
# two exclude each other, Kconfig keeps the first for that allocator:
# DEBUG_SLAB comes before KASAN, which SLAB has only without it.
DEBUG: Tuple[Tuple[str, str], ...] = (
	('SLUB_DEBUG_ON=y', "SLUB's poisoning, red zones and free checks on every cache"),
	('DEBUG_SLAB=y', "SLAB's poisoning and red zones (then no KASAN: Kconfig)"),
	('KASAN=y', 'generic KASAN: every access to slab memory checked'),
	('KASAN_GENERIC=y', 'the software mode, on any x86_64'),
	('KASAN_OUTLINE=y', 'outline checks: a smaller, faster-building kernel'),
	('KASAN_KUNIT_TEST=m', "upstream's KASAN test, a gate where it builds"),
	('KFENCE=y', 'sampled guarded objects'),
	('KFENCE_SAMPLE_INTERVAL=1', "every millisecond: the suite's objects land in KFENCE"),
	('KFENCE_KUNIT_TEST=m', "upstream's KFENCE test, a gate where it builds"),
	('INIT_ON_FREE_DEFAULT_ON=y', 'freed objects wiped: a double free shows'),
	('PROVE_LOCKING=y', 'lockdep on slab and RCU locks'),
	('DEBUG_VM=y', 'VM_BUG_ON() on struct page/folio and slab state'),
	('DEBUG_OBJECTS=y', 'object lifetime tracking'),
	('DEBUG_OBJECTS_RCU_HEAD=y', 'an rcu_head queued twice or freed while queued'),
)

# (option=value, why): kmemleak, apart from KASAN as syzbot runs them.
# KASAN's quarantine keeps freed objects' pages (that of kmemleak's own
# metadata too, which no module can flush), so together the suite's slab
# page counter could no longer tell a leak from the quarantine.
LEAK: Tuple[Tuple[str, str], ...] = (
	('DEBUG_KMEMLEAK=y', 'leak reports: a scan after the suite'),
	('DEBUG_KMEMLEAK_AUTO_SCAN=n', 'scanned when the suite is done, not at random'),
)


def line_of(option: str) -> str:
	"""'X=n' -> '# CONFIG_X is not set', 'X=v' -> 'CONFIG_X=v'."""
	name, value = option.split('=', 1)
	return f'# CONFIG_{name} is not set' if value == 'n' else f'CONFIG_{name}={value}'


def debian_values(path: str, how: str) -> Tuple[str, Dict[str, str]]:
	"""(the config's "Linux/x86 ... Kernel Configuration" title,
	option -> its line) of a Debian config; an option it does not set
	reads "# CONFIG_X is not set"."""
	try:
		with lzma.open(path, 'rt') as f:
			text = f.read()
	except OSError as e:
		raise ConfigError(f'cannot read {path} ({e.strerror or e}); {how}') from e
	m = re.search(r'^# (Linux/\S+ \S+ Kernel Configuration)$', text, re.M)
	lines: Dict[str, str] = {}
	for line in text.splitlines():
		if line.startswith('CONFIG_'):
			lines[line.split('=', 1)[0]] = line
	values = {}
	for opt, _ in DISTRO:
		name = f'CONFIG_{opt}'
		values[name] = lines.get(name, f'# {name} is not set')
	return (m.group(1) if m else 'unknown version'), values


def kept(s: Settings, src: str, alloc: str, candidate: str, scratch: str) -> Set[str]:
	"""The options of candidate that hold after olddefconfig on
	tinyconfig + base.config + candidate + ALLOC.config."""
	shutil.rmtree(scratch, ignore_errors=True)
	os.makedirs(scratch)
	frags = [fragment_path(s, 'base.config'), candidate, fragment_path(s, f'{alloc}.config')]
	merge_fragments(src, scratch, frags, os.path.join(scratch, 'merge.log'),
			f'distro config on {alloc}')
	with open(os.path.join(scratch, '.config')) as f:
		have = set(f.read().splitlines())
	set_opts = {line.split('=', 1)[0] for line in have if line.startswith('CONFIG_')}
	held = set()
	for opt, line in wanted([candidate]).items():
		if (line in have) if line.startswith('CONFIG_') else (opt not in set_opts):
			held.add(opt)
	return held


def fragment(title: str, source: str, lines: List[str], values: Dict[str, str],
	     na: List[str], why: Dict[str, str], absent: Tuple[str, ...] = ()) -> str:
	out = [f'# {title}', '#', f'# Generated by "make profile-configs" from {source};',
	       '# edit matrix/zsp/profiles.py, not this file.']
	if absent:
		out.append(ABSENT_PREFIX + ' '.join(absent))
	if na:
		out.append(NA_PREFIX + ' '.join(values[o] if values[o].startswith('CONFIG_')
						else o for o in na))
	for opt in lines:
		out += [f'# {why[opt]}', values[opt]]
	return '\n'.join(out) + '\n'


def debian_version(s: Settings, package: str) -> str:
	"""The installed package's version, or for a suite's, the version
	of the .deb fetch-backports.sh downloaded."""
	if axes.KERNELS[s.kernel].suite:
		debs = sorted(glob.glob(os.path.join(s.cache, 'apt', 'archives', f'{package}_*.deb')))
		return os.path.basename(debs[-1]).split('_')[1] if debs else 'version unknown'
	p = subprocess.run(['dpkg-query', '-W', '-f=${Version}', package],
			   capture_output=True, text=True)
	return p.stdout.strip() if p.returncode == 0 else 'version unknown'


def generate(s: Settings, profile: str, title: str, source: str, values: Dict[str, str],
	     why: Dict[str, str]) -> List[str]:
	"""Write configs/PROFILE.config and PROFILE-ALLOC.config (another
	kernel's: configs/KERNEL/); their paths."""
	scratch = os.path.join(s.cache, 'profile-configs', s.kernel, profile)
	os.makedirs(scratch, exist_ok=True)
	candidate = os.path.join(scratch, 'candidate.config')
	tree = Tree(s, 'vanilla')
	with lock.held(s.cache, lock.to_take([tree.lock])):
		src = tree.prepare()
		defined = kconfig_symbols(src)
		order = [o for o in values if o[len('CONFIG_'):] in defined]
		gone = tuple(o for o in values if o not in order)
		with open(candidate, 'w') as f:
			f.write('\n'.join(values[o] for o in order) + '\n')
		held = {a: kept(s, src, a, candidate, os.path.join(scratch, a))
			for a in axes.allocators(s.kernel)}
	nowhere = [o for o in order if not any(o in h for h in held.values())]
	if nowhere:
		raise ConfigError(f"no allocator keeps {' '.join(values[o] for o in nowhere)}: "
				  'add what it depends on in matrix/zsp/profiles.py')
	common = [o for o in order if all(o in h for h in held.values())]
	where = s.configs if s.kernel == axes.DEFAULT_KERNEL else os.path.join(s.configs, s.kernel)
	os.makedirs(where, exist_ok=True)
	written = [os.path.join(where, f'{profile}.config')]
	with open(written[0], 'w') as f:
		f.write(fragment(f'{title}, every allocator.', source, common, values, [], why,
				 gone))
	for a, h in held.items():
		own = [o for o in order if o in h and o not in common]
		na = [o for o in order if o not in h]
		path = os.path.join(where, f'{profile}-{a}.config')
		if os.path.exists(path):
			os.unlink(path)
		if own or na:
			with open(path, 'w') as f:
				f.write(fragment(f'{title}, those only some allocators have: '
						 f'{a.upper()}.', source, own, values, na, why))
			written.append(path)
	return written


# A Kconfig symbol's definition: "config X" or "menuconfig X".
KCONFIG_SYMBOL = re.compile(r'^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$', re.M)


def kconfig_symbols(src: str) -> Set[str]:
	"""Every symbol the tree's Kconfig files define: an option of a
	profile's table that is not among them is not in this kernel."""
	symbols: Set[str] = set()
	for top, dirs, files in os.walk(src):
		dirs[:] = [d for d in dirs if not d.startswith(('.', 'o-'))]
		for name in files:
			if name.startswith('Kconfig'):
				with open(os.path.join(top, name), errors='replace') as f:
					symbols.update(KCONFIG_SYMBOL.findall(f.read()))
	return symbols


def distro(s: Settings, debian_config: str) -> List[str]:
	"""The distro fragments from @debian_config ('': the kernel's own,
	axes.Kernel.debian_config)."""
	k = axes.KERNELS[s.kernel]
	debian_config = debian_config or k.debian_config_path(s.cache)
	how = (f'make deps CACHE={s.cache} fetches it ({k.suite})' if k.suite
	       else f'install it: apt-get install {k.config_package}')
	version, values = debian_values(debian_config, how)
	# Where the package puts it, not where this cache holds a fetched one.
	shown = k.debian_config if debian_config == k.debian_config_path(s.cache) else debian_config
	why = {f'CONFIG_{o}': w for o, w in DISTRO}
	return generate(s, 'distro', f"Debian's slab-relevant options ({version})",
			f'{shown} ({k.config_package} {debian_version(s, k.config_package)})',
			values, why)


def from_table(s: Settings, profile: str, table: Tuple[Tuple[str, str], ...],
	       title: str) -> List[str]:
	values = {f'CONFIG_{o.split("=")[0]}': line_of(o) for o, _ in table}
	why = {f'CONFIG_{o.split("=")[0]}': w for o, w in table}
	return generate(s, profile, title,
			f'the {profile.upper()} table of matrix/zsp/profiles.py', values, why)


# The profiles whose fragments come from a table above: profile -> (its
# table, the fragment's title). A new one is a table and a line here.
TABLES: Dict[str, Tuple[Tuple[Tuple[str, str], ...], str]] = {
	'debug': (DEBUG, "The kernel's memory debuggers"),
	'leak': (LEAK, "The kernel's leak detector"),
}


@dataclass(frozen=True)
class ProfilesRequest:
	"""make profile-configs (zsp profile-configs)."""
	# The Debian config to take the distro values from; '': the kernel's.
	debian_config: str = ''


def main(s: Settings, req: ProfilesRequest) -> int:
	written = distro(s, req.debian_config)
	for profile, (table, title) in TABLES.items():
		written += from_table(s, profile, table, title)
	for path in written:
		print(os.path.relpath(path, axes.ROOT))
	return 0
