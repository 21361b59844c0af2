/**
 * A small classic-BPF interpreter for seccomp programs: runs one over the `struct seccomp_data` the
 * kernel would hand it (the call's number and architecture) and returns what the program answers.
 */

/** Runs a classic-BPF seccomp program over one call; refuses any instruction a seccomp program of this shape should not hold. */
export function runSeccomp(program: Buffer, arch: number, nr: number): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  let accumulator = 0;
  let pc = 0;
  for (let steps = 0; steps < 4096; steps += 1) {
    if (pc * 8 >= program.length) throw new Error(`the program runs off its end at ${pc}`);
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    pc += 1;
    switch (code) {
      case 0x20: // BPF_LD | BPF_W | BPF_ABS
        accumulator = data.readUInt32LE(k);
        break;
      case 0x15: // BPF_JMP | BPF_JEQ | BPF_K
        pc += accumulator === k ? jt : jf;
        break;
      case 0x35: // BPF_JMP | BPF_JGE | BPF_K
        pc += accumulator >= k ? jt : jf;
        break;
      case 0x06: // BPF_RET | BPF_K
        return k;
      default:
        throw new Error(`unexpected BPF opcode 0x${code.toString(16)} at ${pc - 1}`);
    }
  }
  throw new Error('the program did not return');
}
