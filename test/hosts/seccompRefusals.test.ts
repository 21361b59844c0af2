/**
 * The seccomp program the sandbox loads, run here by a small classic-BPF interpreter over the
 * `struct seccomp_data` the kernel would hand it: which system calls a sandboxed tool is refused.
 * The sandboxed runs (a real ptrace refused under bubblewrap) are in test/integration; this one holds
 * on any machine, bubblewrap or not, and checks every architecture the program names.
 */
import { describe, expect, it } from 'vitest';
import { seccompFilter } from '../../main/hosts/seccompFilter';
import { runSeccomp as run } from './classicBpf';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050000 | 1;

const ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7 } as const;

/** Syscall numbers from each architecture's unistd table: the ones that reach into another process, and a few every program makes. */
const SYSCALLS = {
  x86_64: { ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, pidfd_getfd: 438, process_madvise: 440, read: 0, write: 1, execve: 59, clone: 56, kill: 62, pidfd_open: 434 },
  i386: { ptrace: 26, process_vm_readv: 347, process_vm_writev: 348, pidfd_getfd: 438, process_madvise: 440, read: 3, write: 4, execve: 11, clone: 120, kill: 37, pidfd_open: 434 },
  aarch64: { ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, pidfd_getfd: 438, process_madvise: 440, read: 63, write: 64, execve: 221, clone: 220, kill: 129, pidfd_open: 434 },
} as const;

const REACHING = ['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd', 'process_madvise'] as const;
const ORDINARY = ['read', 'write', 'execve', 'clone', 'kill', 'pidfd_open'] as const;

describe('the sandbox seccomp program', () => {

  for (const arch of Object.keys(ARCH) as (keyof typeof ARCH)[]) {
    it(`refuses with EPERM, on ${arch}, every call that reads, writes or steers another process, and lets ordinary calls through`, () => {
      const program = seccompFilter();
      for (const name of REACHING) expect([name, run(program, ARCH[arch], SYSCALLS[arch][name])]).toEqual([name, EPERM]);
      for (const name of ORDINARY) expect([name, run(program, ARCH[arch], SYSCALLS[arch][name])]).toEqual([name, ALLOW]);
    });
  }

  it('refuses every x32 call (the x86_64 number with bit 30 set), so ptrace cannot come in under that name', () => {
    const program = seccompFilter();
    const X32 = 0x40000000;
    expect(run(program, ARCH.x86_64, X32 | SYSCALLS.x86_64.ptrace)).toBe(EPERM);
    expect(run(program, ARCH.x86_64, X32 | SYSCALLS.x86_64.read)).toBe(EPERM);
    // Just below the x32 range is an ordinary (unassigned) x86_64 number: not refused for being x32.
    expect(run(program, ARCH.x86_64, X32 - 1)).toBe(ALLOW);
  });

  it('refuses every call of an architecture it does not name, whose numbers could mean anything', () => {
    const program = seccompFilter();
    const ARM_EABI = 0x40000028;
    for (const nr of [0, 26, 101, 117]) expect(run(program, ARM_EABI, nr)).toBe(EPERM);
    // An architecture that differs from a named one by its top bit only is not that one.
    expect(run(program, ARCH.x86_64 & 0x7fffffff, SYSCALLS.x86_64.read)).toBe(EPERM);
  });
});
