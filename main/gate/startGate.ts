import { rmSync } from 'node:fs';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import { startGateHttpServer } from '../server/gateHttpServer';
import { builtAssets, statePaths } from '../state/paths';
import { GateError } from '../../shared/errors';
import { hookSocketPath } from '../state/runningGate';
import { ensureHome, loadOrCreateConsoleToken, loadOrCreateToken, readGateAddress, writeGateAddress, type GateAddress } from '../state/stateFolder';
import { callsFromAudit, HISTORY_CALLS } from '../executor/callHistory';
import { createGate, type Gate, type GateOptions } from './createGate';

/** The port a person's gate listens on unless told otherwise (so agent configs stay put). */
export const DEFAULT_PORT = 7749;

/** One audit chain has one writer: a second gate on the same state folder is refused. */
function refuseSecondGate(home: string): void {
  let running: GateAddress;
  try {
    running = readGateAddress(home);
  } catch {
    return;
  }
  throw new GateError(
    'EPERMISSION',
    `a gate is already running for ${home} (pid ${running.pid}, ${running.consoleUrl}); stop it first, or give this one its own TOOLGATE_HOME`,
  );
}

/** A gate serving MCP and the console on loopback. */
export interface RunningGate {
  readonly gate: Gate;
  readonly backend: ConsoleBackend;
  readonly mcpUrl: string;
  /** The console URL, carrying the console token in its fragment (never the agents' token); no fragment without a browser console. */
  readonly consoleUrl: string;
  readonly port: number;
  /** Stops serving and closes the gate. Idempotent. */
  close(): Promise<void>;
}

/** How a gate is served beyond its core options. */
export interface ServeOptions {
  port?: number;
  /**
   * Serve the console to a browser over /bridge (default true). The desktop shell answers prompts
   * over IPC and passes false: then no console token exists and /bridge opens for nobody.
   */
  browserConsole?: boolean;
}

/** Creates a gate and serves it on 127.0.0.1 (port 0 picks a free one); records where in $TOOLGATE_HOME/gate.json. */
export async function startGate(options: GateOptions & ServeOptions): Promise<RunningGate> {
  ensureHome(options.home);
  refuseSecondGate(options.home);
  // The agents' token first: the console token is checked against it.
  const mcp = loadOrCreateToken(options.home);
  const tokens = { mcp, console: options.browserConsole === false ? undefined : loadOrCreateConsoleToken(options.home) };
  const gate = await createGate(options);
  let http;
  try {
    // This is the log's only writer now, and no call has begun: any call still open was left by a gate that stopped.
    gate.audit.recordInterruptedCalls();
    // The Live view opens on what the gates before this one did, up to as many calls as it keeps.
    gate.calls.restore(callsFromAudit(gate.audit, HISTORY_CALLS));
    http = await startGateHttpServer(gate, { tokens, port: options.port, rendererRoot: builtAssets().renderer, hookSocket: hookSocketPath(options.home) });
  } catch (error) {
    await gate.close();
    throw error;
  }
  gate.setMcpUrl(http.mcpUrl);
  writeGateAddress(options.home, {
    pid: process.pid,
    port: http.port,
    mcpUrl: http.mcpUrl,
    consoleUrl: http.consoleUrl.replace(/#.*$/, ''),
    workspace: gate.workspace,
  });
  let closing: Promise<void> | undefined;
  return {
    gate,
    backend: gate.backend,
    mcpUrl: http.mcpUrl,
    consoleUrl: http.consoleUrl,
    port: http.port,
    close: () => {
      closing ??= (async () => {
        // Deny waiting prompts while the connections are still open, so each agent reads why.
        gate.approvals.close();
        await http.close();
        await gate.close();
        rmSync(statePaths(options.home).gate, { force: true });
      })();
      return closing;
    },
  };
}
