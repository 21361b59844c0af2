import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { IPty } from 'node-pty';

/** What node-pty keeps of its Unix terminal and does not type: the socket it reads, and the terminal's descriptor. */
interface TerminalInternals {
  _socket?: { destroy: (...args: unknown[]) => unknown; read: () => unknown; _readableState?: { decoder?: StringDecoder | null } };
  _fd?: number;
}

/**
 * Reads what the command wrote and the loop had not read yet before node-pty ends its socket.
 * node-pty ends it 200 ms after the shell exits when the terminal is still open (runShell holds it
 * open, so that Linux keeps the end of the output readable): on a loaded machine the loop had not
 * read the last of the output by then, and it was lost (the end of `seq 1 40000`). The terminal's
 * descriptor does not block, so the read ends where the output does; the socket's own decoder
 * carries on from a character its last chunk split.
 */
export function readRestBeforeClose(child: IPty, deliver: (chunk: string) => void): void {
  const { _socket: socket, _fd: fd } = child as IPty & TerminalInternals;
  if (!socket || typeof fd !== 'number') return;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (...args: unknown[]) => {
    // What the socket read and still holds (a paused one holds what it read) goes out as its data events, then what the terminal holds.
    while (socket.read() !== null);
    readRest(fd, socket._readableState?.decoder ?? new StringDecoder('utf8'), deliver);
    return destroy(...args);
  };
}

function readRest(fd: number, decoder: StringDecoder, deliver: (chunk: string) => void): void {
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      break; // EAGAIN: nothing more was written; EIO: the terminal is closed
    }
    if (read <= 0) break;
    const text = decoder.write(buffer.subarray(0, read));
    if (text) deliver(text);
  }
}
