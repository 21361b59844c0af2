/**
 * The seccomp program every sandboxed tool process runs under, as the classic-BPF bytes bubblewrap
 * reads from `--seccomp FD`. It refuses (EPERM) the system calls that let one process read, write or
 * steer another: ptrace, process_vm_readv/writev, pidfd_getfd, process_madvise. Everything else is
 * allowed. Written out here rather than through libseccomp: the program is a dozen instructions.
 */

/** The syscall numbers refused, per architecture (from each one's unistd tables). */
const REFUSED_SYSCALLS = {
  /** AUDIT_ARCH_X86_64: ptrace, process_vm_readv, process_vm_writev, pidfd_getfd, process_madvise. */
  0xc000003e: [101, 310, 311, 438, 440],
  /** AUDIT_ARCH_I386 (32-bit calls a 64-bit process may make through int 0x80). */
  0x40000003: [26, 347, 348, 438, 440],
  /** AUDIT_ARCH_AARCH64. */
  0xc00000b7: [117, 270, 271, 438, 440],
} as const;

const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 calls are x86_64 calls with this bit set: refused whole, so no number slips past under another name. */
const X32_SYSCALL_BIT = 0x40000000;

// struct seccomp_data: int nr at offset 0, __u32 arch at offset 4.
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
// Classic BPF opcodes.
const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_IF_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_IF_AT_LEAST = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;

/** One instruction; jumps name the label they go to (resolved to relative offsets at the end). */
interface Instruction {
  code: number;
  k: number;
  ifTrue?: string;
  ifFalse?: string;
  label?: string;
}

/** The compiled filter: 8 bytes per instruction (u16 code, u8 jt, u8 jf, u32 k), little-endian. */
export function seccompFilter(): Buffer {
  const program: Instruction[] = [{ code: LOAD_WORD, k: OFFSET_ARCH }];
  const arches = Object.keys(REFUSED_SYSCALLS).map(Number);
  for (const arch of arches) program.push({ code: JUMP_IF_EQUAL, k: arch, ifTrue: `arch-${arch}` });
  // An architecture not listed is refused every call: unknown numbers could mean anything.
  program.push({ code: RETURN, k: SECCOMP_RET_ERRNO | EPERM });
  for (const arch of arches) {
    program.push({ code: LOAD_WORD, k: OFFSET_NR, label: `arch-${arch}` });
    if (arch === AUDIT_ARCH_X86_64) program.push({ code: JUMP_IF_AT_LEAST, k: X32_SYSCALL_BIT, ifTrue: 'refuse' });
    for (const syscall of REFUSED_SYSCALLS[arch as keyof typeof REFUSED_SYSCALLS]) {
      program.push({ code: JUMP_IF_EQUAL, k: syscall, ifTrue: 'refuse' });
    }
    program.push({ code: RETURN, k: SECCOMP_RET_ALLOW });
  }
  program.push({ code: RETURN, k: SECCOMP_RET_ERRNO | EPERM, label: 'refuse' });
  return assemble(program);
}

function assemble(program: Instruction[]): Buffer {
  const at = new Map(program.flatMap((instruction, index) => (instruction.label ? [[instruction.label, index] as const] : [])));
  const offset = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const distance = at.get(label)! - from - 1;
    // Classic BPF jumps only forward, at most 255 instructions.
    if (distance < 0 || distance > 255) throw new Error(`seccomp jump to ${label} out of range`);
    return distance;
  };
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(offset(index, instruction.ifTrue), index * 8 + 2);
    bytes.writeUInt8(offset(index, instruction.ifFalse), index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}
