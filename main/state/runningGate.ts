import { existsSync, readFileSync } from 'node:fs';
import { statePaths } from './paths';

// Read on every Claude Code hook: Node's built-in modules only, so a hook process starts in a few
// milliseconds (zod, node:http or the gate's own modules would cost it several times Node's start).

/** What the agent reads when no gate is running. */
export const GATE_NOT_RUNNING_MESSAGE =
  'Toolgate is not running: start it with `toolgate serve --workspace DIR` (or `npm start` in the Toolgate folder)';

/**
 * The longest Unix socket path the hook uses: sun_path holds 108 bytes on Linux and 104 on macOS,
 * with its terminating NUL. A state folder too deep for it is reached over the loopback port only.
 */
const MAX_SOCKET_PATH_BYTES = 103;

/** Where the gate of this state folder listens for Claude Code's hook besides its port, or undefined when the path is too long for a socket. */
export function hookSocketPath(home: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const path = statePaths(home).hookSocket;
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES ? path : undefined;
}

/** A running gate as its state folder records it: where to reach it and the agents' token. */
export interface RunningGateEndpoint {
  port: number;
  socketPath: string | undefined;
  token: string;
}

/** A bearer token that can travel in a header line as it is: printable ASCII, no spaces. */
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]{1,512}$/;

/**
 * The gate running for this state folder (its gate.json names a live process, its token file holds
 * a token), or undefined when none does. Never throws: the hook answers `ask` without a gate.
 */
export function runningGateEndpoint(home: string): RunningGateEndpoint | undefined {
  try {
    const { gate: addressFile, token: tokenFile } = statePaths(home);
    if (!existsSync(addressFile) || !existsSync(tokenFile)) return undefined;
    const address = JSON.parse(readFileSync(addressFile, 'utf8')) as { pid?: unknown; port?: unknown };
    if (!Number.isInteger(address.pid) || !Number.isInteger(address.port)) return undefined;
    process.kill(address.pid as number, 0);
    const token = readFileSync(tokenFile, 'utf8').trim();
    if (!HEADER_SAFE_TOKEN.test(token)) return undefined;
    return { port: address.port as number, socketPath: hookSocketPath(home), token };
  } catch {
    return undefined;
  }
}
