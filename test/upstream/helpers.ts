import { dirname, resolve } from 'node:path';
import { toolgateRoot } from '../../main/state/paths';
import { UpstreamSandboxSchema, type UpstreamSandbox, type UpstreamServerConfig } from '../../shared/upstream';
import type { SandboxInfo } from '../../main/hosts/sandbox';
import { createUpstreamConnection } from '../../main/upstream/upstreamConnection';
import type { UpstreamDeps } from '../../main/upstream/upstreamLimits';
import type { UpstreamConnection } from '../../main/upstream/types';
import { WAIT_MS } from '../fixtures/processes';

/** The fixture server, run by the Node running the tests. */
export const FIXTURE = resolve('test/fixtures/upstreamServer.mjs');

/**
 * What a sandboxed test server must read although it may live under /tmp (a clean clone, a Node
 * from the npm registry): the sandbox's /tmp is its own.
 */
export const TEST_READABLE = [toolgateRoot(), dirname(dirname(process.execPath))];

/** A stdio entry running the fixture in one of its modes. */
export function fixtureConfig(mode: string, options: { name?: string; args?: string[]; env?: Record<string, string>; sandbox?: Partial<UpstreamSandbox> } = {}): UpstreamServerConfig {
  return {
    name: options.name ?? 'fixture',
    transport: 'stdio',
    command: process.execPath,
    args: [FIXTURE, mode, ...(options.args ?? [])],
    env: options.env ?? {},
    sandbox: UpstreamSandboxSchema.parse({ ...options.sandbox, readable: [...TEST_READABLE, ...(options.sandbox?.readable ?? [])] }),
  };
}

/** A stdio entry running a one-line Node script (a server that hangs, exits, prints…). */
export function scriptConfig(name: string, script: string, env: Record<string, string> = {}): UpstreamServerConfig {
  return { name, transport: 'stdio', command: process.execPath, args: ['-e', script], env, sandbox: UpstreamSandboxSchema.parse({ readable: TEST_READABLE }) };
}

/** Connections made by a test, closed after it. */
export class Connections {
  private readonly open: UpstreamConnection[] = [];

  constructor(private readonly defaults: Omit<UpstreamDeps, 'sandbox'> & { sandbox?: SandboxInfo }) {}

  make(config: UpstreamServerConfig, deps: Partial<UpstreamDeps> = {}): UpstreamConnection {
    const connection = createUpstreamConnection(config, { sandbox: { kind: 'none', reason: 'not needed by this test' }, ...this.defaults, ...deps });
    this.open.push(connection);
    return connection;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((connection) => connection.close()));
  }
}

/** The text of a successful outcome's first block. */
export function firstText(outcome: { ok: boolean; content?: unknown[] }): string {
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome)}`);
  return (outcome.content![0] as { text: string }).text;
}

/** Polls until `check` holds, or fails after `ms`. */
export async function eventually(check: () => boolean, ms = WAIT_MS): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
