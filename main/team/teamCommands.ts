import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { flag, intFlag, UsageError } from '../cli/argv';
import { parseCommandLine, subcommandOf } from '../cli/commandSpec';
import { commandSpec } from '../cli/commandSpecs';
import type { Io } from '../cli/commands';
import { loadTeamCredentials } from './teamCredentials';
import { connectTeam } from './teamConnection';
import { makeTeam } from './teamInit';
import { TeamNameSchema } from './teamNames';
import { setUpTeam } from './teamSetup';

/** `toolgate team init NAME` writes a new team's server config and credentials; `toolgate team setup` creates its streams and buckets. */
export async function teamCommand(argv: string[], io: Io): Promise<number> {
  const subSpec = subcommandOf(commandSpec('team'), argv);
  if (!subSpec) throw new UsageError('say team init NAME or team setup');
  const args = parseCommandLine(subSpec, argv, `team ${subSpec.name}`);
  const [sub, name, ...extra] = args.positionals;
  if (sub === 'init') {
    if (!name || extra.length > 0) throw new UsageError('team init takes the team\'s name, e.g. toolgate team init acme --gate laptop-alice --approver alice --out ./acme');
    const names = (option: string) => (args.flags.get(option) ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
    for (const member of [name, ...names('gate'), ...names('approver')]) {
      const checked = TeamNameSchema.safeParse(member);
      if (!checked.success || member === 'admin') throw new UsageError(`${JSON.stringify(member)}: a team or member name ${checked.success ? 'may not be "admin" (the admin is made for you)' : checked.error.issues[0]!.message}`);
    }
    if (names('gate').length === 0) throw new UsageError('team init needs at least one --gate NAME');
    const out = resolve(flag(args, 'out') ?? name);
    if (existsSync(out) && readdirSync(out).length > 0) throw new UsageError(`${out} is not empty: team init writes new keys only into an empty or new folder`);
    mkdirSync(out, { recursive: true, mode: 0o700 });
    const made = makeTeam({ team: name, gates: names('gate'), approvers: names('approver'), port: intFlag(args, 'port', 1, 65_535) ?? 4222, storeDir: resolve(flag(args, 'store') ?? '/var/lib/nats') });
    writeFileSync(join(out, 'nats-server.conf'), made.config, { mode: 0o600 });
    for (const member of made.members) writeFileSync(join(out, `${member.member}.json`), `${JSON.stringify(member.credentials, null, 2)}\n`, { mode: 0o600 });
    io.out(
      [
        `Team ${name} written to ${out}:`,
        `  nats-server.conf  the server's config (run: nats-server -c ${join(out, 'nats-server.conf')})`,
        ...made.members.map((member) => `  ${`${member.member}.json`.padEnd(17)} ${member.roles.join(' + ')}: give it to ${member.member === 'admin' ? 'whoever runs the server alone' : `${member.member} alone`}`),
        `Then, with the server running: toolgate team setup --team nats://HOST:${intFlag(args, 'port', 1, 65_535) ?? 4222} --team-creds ${join(out, 'admin.json')}`,
        '',
      ].join('\n'),
    );
    return 0;
  }
  if (sub === 'setup') {
    if (name !== undefined) throw new UsageError('team setup takes no arguments: --team URL --team-creds ADMIN_FILE');
    const url = flag(args, 'team');
    const file = flag(args, 'team-creds');
    if (!url || !file) throw new UsageError('team setup needs --team nats://HOST:4222 and --team-creds with the admin\'s credentials');
    const credentials = loadTeamCredentials(resolve(file));
    const connection = await connectTeam({ url, credentials });
    try {
      await setUpTeam(connection, credentials.team);
    } finally {
      await connection.close();
    }
    io.out(`Team ${credentials.team} is set up on ${url}: its prompts and checkpoints streams, and its decisions and policy buckets.\n`);
    return 0;
  }
  throw new UsageError('say team init NAME or team setup');
}
