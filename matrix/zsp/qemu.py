# SPDX-License-Identifier: GPL-2.0
"""Boots one test kernel in QEMU and watches its serial console.

The console is copied line by line to a log. The guest is stopped when it
oopses (a case that announced an expected oops gets that one through, not
a second), when a soft lockup is reported, when it has been silent for too
long, or when the total timeout runs out; the outcome says which. QEMU
ending on its own (killed, failed, or quit before the guest powered off)
is "qemu-error": the host's or QEMU's doing, not the kernel's. QEMU always
runs without network, with -no-reboot, and is killed on every way out of
this module. Console text is untrusted: it is matched, never executed.
"""

import argparse
import functools
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, asdict
from typing import List, Optional, Tuple

from . import axes, callsites, console
from .results import Outcome

# After a fatal line, read this long for the rest of the oops, then kill.
GRACE_S = 2.0
# One boot runs every module of a cell (about a minute under TCG).
TIMEOUT_S = 300.0
# The suite prints a line at least every few seconds (the longest case
# waits ~10 s for RCU, printing nothing); 20 s of nothing is a hang.
SILENCE_S = 20.0


@dataclass
class BootResult:
	# poweroff, crash, panic, hang, timeout (the kernel's doing), or
	# qemu-error (QEMU failed, was killed, or quit: not a kernel verdict).
	outcome: Outcome
	reason: str		# the console line or condition behind the outcome
	seconds: float
	# The longest stretch without console output, from QEMU's start to
	# its end: what a profile's silence limit is measured against
	# (axes.Profile.slowdown).
	longest_silence: float = 0.0


def kvm_usable() -> bool:
	"""KVM only where /dev/kvm opens and the CPU really virtualizes."""
	try:
		fd = os.open('/dev/kvm', os.O_RDWR)
		os.close(fd)
		with open('/proc/cpuinfo') as f:
			flags = f.read()
	except OSError:
		return False
	return re.search(r'\b(vmx|svm)\b', flags) is not None


def accelerator(icount: bool = False) -> str:
	"""The -accel a boot gets: KVM where it is usable, else TCG, which
	alone counts instructions (ICOUNT). What a guest does within its time
	limits can differ between the two, so results reuse keys on it."""
	return 'kvm' if kvm_usable() and not icount else 'tcg'


@functools.lru_cache(maxsize=None)
def version(binary: str) -> str:
	"""@binary's --version text, once per process: another QEMU (an
	upgrade, a local build) may boot the same kernel to another verdict,
	so results reuse keys on it. A QEMU that cannot tell says why; its
	boots fail, and a cell with a QEMU error is never stored."""
	try:
		p = subprocess.run([binary, '--version'], capture_output=True, text=True,
				   timeout=30)
	except (OSError, subprocess.SubprocessError) as e:
		return f'unknown: {e}'
	if p.returncode:
		return f'unknown: {binary} --version exited with status {p.returncode}'
	return p.stdout.strip()


@dataclass(frozen=True)
class QemuConfig:
	"""A guest architecture, as kunit.py's qemu_configs/x86_64.py: the QEMU
	binary and machine, where kbuild puts the image, and the console the
	harness reads. Guests have no network, SMP like the kernels users
	run, and end at a panic instead of rebooting."""
	arch: str
	binary: str
	kernel_image: str	# relative to the O= dir
	console: str
	memory: str = '256M'
	smp: int = 2
	options: Tuple[str, ...] = ('-nic', 'none', '-no-reboot', '-display', 'none',
				    '-monitor', 'none', '-serial', 'stdio')


@dataclass(frozen=True)
class Guest:
	"""What a cell's profile asks of its guest (axes.Profile)."""
	memory: str = ''
	numa_nodes: int = 1
	append: str = ''
	slowdown: float = 1.0

	@staticmethod
	def of(profile: str, kernel: str = axes.DEFAULT_KERNEL,
	       config: Optional['QemuConfig'] = None) -> 'Guest':
		"""A profile's guest on @kernel, checked against the arch's vCPUs:
		QEMU would refuse a node split it cannot make, on every boot."""
		p = axes.PROFILES[profile]
		append = ' '.join(a for a in (axes.KERNELS[kernel].append, p.append, detectors(p.slowdown),
					      callsites.boot_append() if p.callsites else '') if a)
		g = Guest(p.memory, p.numa_nodes, append, p.slowdown)
		arch = config or X86_64
		if g.numa_nodes > 1 and (arch.smp % g.numa_nodes or
					 parse_mib(g.memory or arch.memory) % g.numa_nodes):
			raise ValueError(f'profile {profile}: {g.numa_nodes} NUMA nodes do not divide '
					 f'{arch.smp} vCPUs and {g.memory or arch.memory} evenly '
					 '(zsp/axes.py)')
		return g


X86_64 = QemuConfig(arch='x86_64', binary='qemu-system-x86_64',
		    kernel_image='arch/x86/boot/bzImage', console='ttyS0')


# QEMU's instruction counting: the guest's clock advances 2^0 ns per
# instruction executed, and jumps over idle time (sleep=off), so that a
# guest's timing is an instruction count the host's load cannot move
# (make bench). TCG only.
ICOUNT = ['-icount', 'shift=0,sleep=off']


def qemu_command(kernel: str, initrd: str, append: str, config: QemuConfig = X86_64,
		 guest: Optional[Guest] = None, reset_log: str = '',
		 icount: bool = False) -> List[str]:
	"""@reset_log: where QEMU logs CPU resets (reset_reason()).
	@icount: time the guest in instructions (ICOUNT)."""
	g = guest or Guest()
	memory = g.memory or config.memory
	return ([config.binary, '-accel', accelerator(icount)] + (ICOUNT if icount else [])
		+ ['-m', memory, '-smp', smp_topology(config.smp, g)]
		+ numa_options(memory, g.numa_nodes, config.smp) + list(config.options)
		+ (['-d', 'cpu_reset', '-D', reset_log] if reset_log else [])
		+ ['-kernel', kernel, '-initrd', initrd,
		   '-append', f'{append} {g.append}'.strip()])


# What TCG logs (-d cpu_reset) when the guest's CPU faults while
# delivering a double fault: the CPU resets, and -no-reboot ends QEMU with
# status 0 and no word on the console. KVM handles it in the host kernel
# and logs nothing: there the boot stays a QEMU error.
TRIPLE_FAULT = 'Triple fault'


def reset_reason(reset_log: str) -> str:
	"""The kernel's part in a QEMU that quit: a triple fault, or ''."""
	try:
		with open(reset_log, errors='replace') as f:
			if any(line.startswith(TRIPLE_FAULT) for line in f):
				return 'triple fault: the guest CPU reset itself (QEMU -d cpu_reset)'
	except OSError:
		pass
	return ''


def smp_topology(smp: int, g: Guest) -> str:
	"""-smp: with NUMA nodes, a socket per node. vCPUs of one socket share
	a last-level cache, and the kernel warns at boot (topology_sane())
	when cache siblings sit on different nodes."""
	if g.numa_nodes <= 1:
		return str(smp)
	return f'{smp},sockets={g.numa_nodes},cores={smp // g.numa_nodes},threads=1'


def numa_options(memory: str, nodes: int, smp: int) -> List[str]:
	"""RAM and vCPUs split evenly over the nodes, a node's vCPUs being one
	socket's (smp_topology): the guest sees them through ACPI's SRAT, as
	on a real machine."""
	if nodes <= 1:
		return []
	mib = parse_mib(memory) // nodes
	per = smp // nodes
	opts = []
	for n in range(nodes):
		cpus = range(n * per, (n + 1) * per)
		opts += ['-object', f'memory-backend-ram,id=ram{n},size={mib}M',
			 '-numa', f'node,nodeid={n},memdev=ram{n}'
			 + ''.join(f',cpus={c}' for c in cpus)]
	return opts


def parse_mib(size: str) -> int:
	"""'512M' or '1G' in MiB."""
	m = re.fullmatch(r'(\d+)([MG])', size)
	if not m:
		raise ValueError(f"guest memory '{size}' is not like 512M or 1G")
	return int(m.group(1)) * (1024 if m.group(2) == 'G' else 1)


# console=ttyS0: the harness reads the serial line. panic=-1 with
# -no-reboot ends QEMU at a panic. watchdog_thresh=5 reports a case spinning
# with preemption off within ~10 s. i8042.noaux skips a slow PS/2 probe.
# rcu_cpu_stall_timeout=10: a CPU that
# spins with interrupts off (SLOB's list walk under slob_lock) never shows a
# soft lockup; the other CPU reports the RCU stall within ~10 s, unless it
# spins on the same lock, when only the silence timeout ends the boot.
WATCHDOG_THRESH = 5
RCU_STALL_S = 10
APPEND = (f'console={X86_64.console} panic=-1 watchdog_thresh={WATCHDOG_THRESH} i8042.noaux '
	  f'rcupdate.rcu_cpu_stall_timeout={RCU_STALL_S} printk.devkmsg=on')


def detectors(slowdown: float) -> str:
	"""A slower guest's own lockup and stall detectors, stretched as the
	harness's limits are (after APPEND on the command line, so they win)."""
	if slowdown == 1.0:
		return ''
	return (f'watchdog_thresh={round(WATCHDOG_THRESH * slowdown)} '
		f'rcupdate.rcu_cpu_stall_timeout={round(RCU_STALL_S * slowdown)}')


class Watch:
	"""Decides, line by line, whether the guest must be stopped."""

	def __init__(self) -> None:
		# The running case announced one oops (zsp-expect-oops) and it has
		# not come yet: that one oops is let through, no other.
		self.expecting_oops = False
		self.stop: Optional[BootResult] = None
		self.stop_at = 0.0

	def feed(self, line: str, now: float) -> None:
		if (console.CASE_START.search(line) or console.CASE_RESULT.search(line)
		    or console.MODULE_END.search(line)):
			# A window closes or opens: an announced oops is owed no more.
			self.expecting_oops = False
		elif console.EXPECT_OOPS.search(line):
			self.expecting_oops = True
		if self.stop:
			return
		if console.POWER_DOWN.search(line):
			# Without ACPI the guest cannot switch QEMU off itself.
			self.stop = BootResult(Outcome.POWEROFF, 'guest powered off', 0.0)
			self.stop_at = now
		elif console.PANIC.search(line):
			self._stop(Outcome.PANIC, line, now)
		elif console.SOFT_LOCKUP.search(line):
			self._stop(Outcome.HANG, line, now)
		elif console.FATAL.search(line):
			if self.expecting_oops:
				self.expecting_oops = False
			else:
				self._stop(Outcome.CRASH, line, now)

	def _stop(self, outcome: Outcome, line: str, now: float) -> None:
		self.stop = BootResult(outcome, line.strip(), 0.0)
		self.stop_at = now + GRACE_S


def exit_reason(rc: int) -> str:
	"""Why QEMU ended on its own: it never does while a guest runs."""
	if rc < 0:
		try:
			name = signal.Signals(-rc).name
		except ValueError:
			name = f'signal {-rc}'
		return f'qemu killed by {name}'
	if rc != 0:
		return f'qemu exited with status {rc}'
	# panic=-1 and -no-reboot end QEMU with 0 after a panic line (a stop
	# above); a 0 without one is a triple fault or a QEMU that quit.
	return 'qemu exited before the guest powered off'


def boot(kernel: str, initrd: str, log: str, timeout: float,
	 silence: float, extra_append: str = '', guest: Optional[Guest] = None,
	 icount: bool = False) -> BootResult:
	start = time.monotonic()
	reset_log = os.path.splitext(log)[0] + '.qemu.log'
	cmd = qemu_command(kernel, initrd, f'{APPEND} {extra_append}'.strip(), guest=guest,
			   reset_log=reset_log, icount=icount)
	# A profile's kernel may run slower than tiny's (KASAN, lockdep): its
	# limits stretch by the factor measured for it (axes.Profile).
	if guest:
		timeout, silence = timeout * guest.slowdown, silence * guest.slowdown
	watch = Watch()
	result: Optional[BootResult] = None
	try:
		proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
					stdout=subprocess.PIPE,
					stderr=subprocess.STDOUT)
	except OSError as e:
		return BootResult(Outcome.QEMU_ERROR, str(e), 0.0)
	assert proc.stdout
	fd = proc.stdout.fileno()
	pending = b''
	last_output = start
	longest = 0.0
	with open(log, 'w', errors='replace') as out:
		out.write('# ' + ' '.join(cmd) + '\n')
		try:
			while result is None:
				now = time.monotonic()
				ready, _, _ = select.select([fd], [], [], 0.2)
				if ready:
					chunk = os.read(fd, 65536)
					if not chunk:
						break
					longest = max(longest, now - last_output)
					last_output = now
					pending += chunk
					*lines, pending = pending.split(b'\n')
					for raw in lines:
						line = raw.decode(errors='replace').rstrip('\r')
						out.write(line + '\n')
						watch.feed(line, now)
					out.flush()
				if watch.stop and now >= watch.stop_at:
					result = watch.stop
				elif now - last_output > silence:
					result = BootResult(Outcome.HANG, f'no console output for {silence:.0f} s', 0.0)
				elif now - start > timeout:
					result = BootResult(Outcome.TIMEOUT, f'guest still running after {timeout:.0f} s', 0.0)
		finally:
			if proc.poll() is None:
				proc.kill()
			rc = proc.wait()
			proc.stdout.close()
			if pending:
				# An unfinished line: kept in the log, marked so that
				# no reader takes it for a whole one.
				out.write(console.CUT + pending.decode(errors='replace') + '\n')
	if result is None and not watch.stop and rc == 0:
		reason = reset_reason(reset_log)
		if reason:
			result = BootResult(Outcome.CRASH, reason, 0.0)
	if result is None:
		result = watch.stop or BootResult(Outcome.QEMU_ERROR, exit_reason(rc), 0.0)
	end = time.monotonic()
	result.seconds = round(end - start, 2)
	result.longest_silence = round(max(longest, end - last_output), 2)
	return result


def add_limits(p: argparse.ArgumentParser) -> None:
	p.add_argument('--timeout', type=float, default=TIMEOUT_S,
		       help='seconds one boot may take in all')
	p.add_argument('--silence', type=float, default=SILENCE_S,
		       help='seconds without console output that make a hang')


def add_arguments(p: argparse.ArgumentParser) -> None:
	p.add_argument('--kernel', required=True, help='the bzImage')
	p.add_argument('--initrd', required=True, help='the initramfs')
	p.add_argument('--log', required=True, help='where the console goes')
	add_limits(p)


@dataclass(frozen=True)
class BootRequest:
	"""One watched boot (zsp internal boot; its flags: add_arguments)."""
	kernel: str
	initrd: str
	log: str
	timeout: float = TIMEOUT_S
	silence: float = SILENCE_S


def run(req: BootRequest) -> int:
	# SIGTERM must run the finally above, which kills QEMU.
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	r = boot(req.kernel, req.initrd, req.log, req.timeout, req.silence)
	print(json.dumps(asdict(r)))
	return 0 if r.outcome == Outcome.POWEROFF else 1
