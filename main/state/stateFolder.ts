import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { GateError } from '../../shared/errors';
import { writeFileAtomically } from './atomicFile';
import { statePaths } from './paths';

/** Creates the state folder (0700) if missing. */
export function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
}

/** Writes a file atomically, readable and writable by its owner only (0600). */
export function writePrivateFile(path: string, content: string): void {
  writeFileAtomically(path, content, 0o600);
}

/** A token file's content when it holds a well-formed token; a readable-by-others file is tightened first. */
function existingToken(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const token = readFileSync(path, 'utf8').trim();
  return /^[0-9a-f]{32,128}$/.test(token) ? token : undefined;
}

function createToken(path: string): string {
  const token = randomBytes(32).toString('hex');
  writePrivateFile(path, `${token}\n`);
  return token;
}

/** The agents' MCP token in $TOOLGATE_HOME/token: created (mode 0600) on first use; a readable-by-others file is tightened. */
export function loadOrCreateToken(home: string): string {
  const { token: path } = statePaths(home);
  return existingToken(path) ?? createToken(path);
}

/**
 * The person's console token in $TOOLGATE_HOME/console-token (mode 0600), created on first use.
 * It must never equal the agents' token (a copied file would let an agent answer its own prompts):
 * such a file is replaced with a fresh token.
 */
export function loadOrCreateConsoleToken(home: string): string {
  const { consoleToken: path } = statePaths(home);
  const token = existingToken(path);
  if (token !== undefined && token !== existingToken(statePaths(home).token)) return token;
  return createToken(path);
}

/** Reads the agents' MCP token of a gate that should be running (never the console token); a clear error if there is none. */
export function readToken(home: string): string {
  const { token: path } = statePaths(home);
  if (!existsSync(path)) {
    throw new GateError('ENOTFOUND', `no token in ${path}: start the gate first with \`toolgate serve --workspace DIR\``);
  }
  return readFileSync(path, 'utf8').trim();
}

/** Where a running gate listens (written by serve, read by mcp and call). */
export interface GateAddress {
  pid: number;
  port: number;
  mcpUrl: string;
  consoleUrl: string;
  workspace: string;
}

/** Records where this gate listens. */
export function writeGateAddress(home: string, address: GateAddress): void {
  writePrivateFile(statePaths(home).gate, `${JSON.stringify(address, null, 2)}\n`);
}

/** Where the running gate listens; a clear error if none runs. */
export function readGateAddress(home: string): GateAddress {
  const { gate: path } = statePaths(home);
  if (!existsSync(path)) {
    throw new GateError('ENOTFOUND', `no gate is running for ${home}: start one with \`toolgate serve --workspace DIR\``);
  }
  const address = JSON.parse(readFileSync(path, 'utf8')) as GateAddress;
  try {
    process.kill(address.pid, 0);
  } catch {
    throw new GateError('ENOTFOUND', `the gate that wrote ${path} (pid ${address.pid}) is no longer running: start it again with \`toolgate serve\``);
  }
  return address;
}
