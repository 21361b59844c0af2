/**
 * The seccomp program judges each architecture's calls by that architecture's own numbers: the
 * x32 refusal (bit 30 of an x86_64 number) is x86_64's alone. On i386 and aarch64 no number at or
 * above bit 30 names a system call, so the program lets it through and the kernel answers it as any
 * unknown number (ENOSYS, which programs probing for a call read as "not there"), not EPERM.
 */
import { describe, expect, it } from 'vitest';
import { seccompFilter } from '../../main/hosts/seccompFilter';
import { runSeccomp } from './classicBpf';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050000 | 1;
const BIT_30 = 0x40000000;

describe('the x32 refusal belongs to x86_64 only', () => {
  it('an i386 or aarch64 call numbered at or above bit 30 is left to the kernel; on x86_64 it is refused', () => {
    const program = seccompFilter();
    // i386's ptrace is 26, aarch64's 117: with bit 30 set they are neither that call nor any other.
    for (const [arch, nr] of [[0x40000003, 26], [0xc00000b7, 117], [0x40000003, 0], [0xc00000b7, 0]] as const) {
      expect({ arch, nr, answer: runSeccomp(program, arch, BIT_30 | nr) }).toEqual({ arch, nr, answer: ALLOW });
    }
    expect(runSeccomp(program, 0xc000003e, BIT_30)).toBe(EPERM);
  });
});
