/**
 * A real `nats-server -js` for the team specs: a free port, a temp store folder, and the server
 * config the docs ship (main/team/serverConfig.ts) with members made here. It can be stopped and
 * started again on the same port and store, as a server that went away and came back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TeamRole } from '../../main/team/serverConfig';
import type { Approver, TeamCredentialsFile } from '../../main/team/teamCredentials';
import { connectTeam } from '../../main/team/teamConnection';
import { makeTeam } from '../../main/team/teamInit';
import { setUpTeam } from '../../main/team/teamSetup';

/** Where nats-server is: the Debian package's path unless NATS_SERVER says otherwise. */
const NATS_SERVER = process.env.NATS_SERVER ?? '/usr/sbin/nats-server';

/** A member made for a test: its credentials file and its roles. */
export interface TestMember {
  member: string;
  roles: TeamRole[];
  credentials: TeamCredentialsFile;
  /** The credentials written to a file, for --team-creds. */
  file: string;
  /** Its Ed25519 public key. */
  publicKey: string;
}

/** A running team server and its members. */
export interface TestNatsServer {
  url: string;
  port: number;
  team: string;
  members: Map<string, TestMember>;
  /** The team's approver list, as every member's credentials carry it. */
  approvers: Approver[];
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folders. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });
}

/**
 * Starts a team's server with the members named (`{ a: ['gate'], carol: ['approver'] }`), an admin,
 * and the team's streams and buckets set up. Members with the approver role are the team's approvers,
 * except the `untrusted` ones: NATS lets them write decisions, but their keys are in no approver list.
 */
export async function startNatsServer(team: string, members: Record<string, TeamRole[]>, options: { untrusted?: string[] } = {}): Promise<TestNatsServer> {
  const base = mkdtempSync(join(tmpdir(), 'toolgate-nats-'));
  const port = await freePort();
  const gates = Object.keys(members).filter((member) => members[member]!.includes('gate'));
  const approving = Object.keys(members).filter((member) => members[member]!.includes('approver'));
  const madeTeam = makeTeam({ team, gates, approvers: approving, host: '127.0.0.1', port, storeDir: join(base, 'store') });
  const untrusted = new Set(options.untrusted ?? []);
  // An untrusted member keeps its NATS rights to write decisions, but no one's list holds its key.
  const approvers = madeTeam.members[0]!.credentials.approvers.filter((approver) => !untrusted.has(approver.name));
  const made = new Map<string, TestMember>();
  for (const entry of madeTeam.members) {
    const credentials = { ...entry.credentials, approvers };
    const file = join(base, `${entry.member}.creds.json`);
    writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
    made.set(entry.member, { member: entry.member, roles: entry.roles, credentials, file, publicKey: entry.publicKey });
  }
  const configFile = join(base, 'nats-server.conf');
  writeFileSync(configFile, madeTeam.config);
  let child: ChildProcess | undefined;
  const url = `nats://127.0.0.1:${port}`;
  const start = async () => {
    const started = spawn(NATS_SERVER, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    await new Promise<void>((resolveReady, reject) => {
      let log = '';
      started.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Server is ready')) resolveReady();
      });
      started.once('exit', (code) => reject(new Error(`nats-server exited with ${code}:\n${log}`)));
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolveExit) => {
      running.once('exit', () => resolveExit());
      running.kill('SIGTERM');
    });
  };
  await start();
  const admin = await connectTeam({ url, credentials: made.get('admin')!.credentials });
  await setUpTeam(admin, team);
  await admin.close();
  return {
    url,
    port,
    team,
    members: made,
    approvers,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
