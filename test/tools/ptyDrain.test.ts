/**
 * The end of a command's output is kept when the loop is slow to read it: node-pty ends its socket
 * 200 ms after the shell exits, and what was still unread then used to be lost (seen under load as
 * `seq 1 40000` returned without its last lines). Here the loop reads nothing at all until then.
 */
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import type { IPty } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { usePtyHere } from '../../main/hosts/ptyHere';
import { readRestBeforeClose } from '../../main/tools/shell/ptyDrain';
import { loadPty } from '../../main/tools/shell/ptyLoader';

describe('a terminal whose output the loop has not read when the shell exits', () => {
  it('still gives every line, in order, before the terminal is closed', async () => {
    usePtyHere();
    const pty = loadPty();
    expect(pty, 'node-pty loads on this machine').not.toBeNull();
    const child = pty!.spawn('/bin/sh', ['-c', 'seq 1 1500'], { name: 'xterm-256color', cols: 120, rows: 30, cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    // As runShell does: the terminal's side held open, so its output stays readable after the shell exits.
    const holder = openSync((child as IPty & { ptsName: string }).ptsName, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
    let output = '';
    child.onData((chunk) => (output += chunk));
    readRestBeforeClose(child, (chunk) => (output += chunk));
    // The loop reads nothing from here on: a loaded machine's loop, at its worst.
    (child as IPty & { _socket: { pause(): void } })._socket.pause();
    await new Promise<void>((resolve) => child.onExit(() => resolve()));
    closeSync(holder);
    const lines = output.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(1500);
    expect(lines.at(-1)).toBe('1500');
    expect(lines.every((line, index) => line === String(index + 1))).toBe(true);
  });
});
