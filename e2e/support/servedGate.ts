import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A `toolgate serve` process on a temp workspace and state folder, as a person would start it. */
export interface ServedGate {
  readonly home: string;
  readonly workspace: string;
  readonly consoleUrl: string;
  readonly mcpUrl: string;
  /** The agents' MCP token ($TOOLGATE_HOME/token), what connectAgent uses. */
  readonly token: string;
  /** The person's console token ($TOOLGATE_HOME/console-token), what consoleUrl carries. */
  readonly consoleToken: string;
  /** An official MCP client connected like an agent. */
  connectAgent(): Promise<Client>;
  /** Stops the gate and removes its temp folders (or keeps them, to start a gate over them again). */
  stop(options?: { keepFolders?: boolean }): Promise<void>;
}

/** The MCP session the gate issued to an agent (what prompts and "Deny all from this agent" go by). */
export function sessionOf(agent: Client): string {
  const sessionId = (agent.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
  if (!sessionId) throw new Error('the agent has no MCP session');
  return sessionId;
}

/** Starts `node bin/toolgate.js serve --workspace <temp> --port 0` and waits for its URLs. */
export async function startServedGate(
  extraArgs: string[] = [],
  options: {
    settings?: Record<string, unknown>;
    /** The state folder and workspace of a gate that stopped: this one is its restart. */
    folders?: { home: string; workspace: string };
    /**
     * The person's servers.json (mcpServers and sandboxes), written into the state folder before
     * the gate starts; a function of the workspace, since a server's arguments and sandbox name it.
     */
    servers?: (workspace: string) => Record<string, unknown>;
  } = {},
): Promise<ServedGate> {
  if (!existsSync(join(ROOT, 'out/main/cli.js'))) throw new Error('build first: npm run build');
  const home = options.folders?.home ?? mkdtempSync(join(tmpdir(), 'toolgate-e2e-home-'));
  // A settings file the person wrote before starting the gate.
  if (options.settings) writeFileSync(join(home, 'settings.json'), JSON.stringify(options.settings));
  const workspace = options.folders?.workspace ?? mkdtempSync(join(tmpdir(), 'toolgate-e2e-ws-'));
  if (options.servers) writeFileSync(join(home, 'servers.json'), JSON.stringify(options.servers(workspace)));
  const child: ChildProcess = spawn(process.execPath, ['bin/toolgate.js', 'serve', '--workspace', workspace, '--port', '0', ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, TOOLGATE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const urls = await new Promise<{ consoleUrl: string; mcpUrl: string }>((resolveUrls, reject) => {
    const timer = setTimeout(() => reject(new Error(`toolgate serve did not start in 45 s:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const consoleUrl = /console\s+(\S+)/.exec(output)?.[1];
      const mcpUrl = /MCP\s+(\S+)/.exec(output)?.[1];
      if (consoleUrl && mcpUrl) {
        clearTimeout(timer);
        resolveUrls({ consoleUrl, mcpUrl });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`toolgate serve exited with ${code}:\n${output}`));
    });
  });
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const consoleToken = readFileSync(join(home, 'console-token'), 'utf8').trim();
  const clients: Client[] = [];
  return {
    home,
    workspace,
    token,
    consoleToken,
    ...urls,
    async connectAgent() {
      const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(urls.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      clients.push(client);
      return client;
    },
    async stop({ keepFolders = false } = {}) {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      if (keepFolders) return;
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
