import { teamNames } from './teamNames';

/** What a member may do on the team's server. */
export type TeamRole = 'gate' | 'approver' | 'admin';

/** One NATS user of the team: its member name, its user nkey (public, starting with U) and its roles. */
export interface TeamMemberEntry {
  member: string;
  nkey: string;
  roles: readonly TeamRole[];
}

/** What the server config is made of. */
export interface TeamServerConfigOptions {
  team: string;
  members: readonly TeamMemberEntry[];
  /** Address to listen on (default 0.0.0.0: every interface; put TLS in front or add a tls block for other machines). */
  host?: string;
  /** Client port (4222 by NATS convention). */
  port: number;
  /** Where JetStream keeps the streams and buckets. */
  storeDir: string;
  /** Largest message the server accepts; the team's own messages stay far below (see teamMessages.ts). */
  maxPayloadBytes?: number;
}

/**
 * The JetStream API calls every member needs to read streams and buckets: stream info, direct and
 * stored message gets, and its own ephemeral consumers. No create, update, delete or purge of a stream:
 * those are the admin's, so no gate can empty the checkpoints the others witness.
 */
const READ_API = [
  '$JS.API.INFO',
  '$JS.API.STREAM.INFO.*',
  '$JS.API.STREAM.MSG.GET.*',
  '$JS.API.DIRECT.GET.>',
  '$JS.API.CONSUMER.CREATE.*',
  '$JS.API.CONSUMER.CREATE.*.>',
  '$JS.API.CONSUMER.INFO.*.*',
  '$JS.API.CONSUMER.MSG.NEXT.*.*',
  '$JS.API.CONSUMER.DELETE.*.*',
  '$JS.FC.>',
];

/** The publish subjects one member is allowed, by its roles. */
export function publishAllowed(team: string, member: string, roles: readonly TeamRole[]): string[] {
  const names = teamNames(team);
  const allowed = [...READ_API];
  // A gate publishes only under its own name: its prompts, their ends, its checkpoints, and decisions on its own prompts (its console's answers).
  if (roles.includes('gate')) allowed.push(`toolgate.${team}.*.${member}`, names.decisionSubject(`${member}.>`));
  // An approver publishes decisions, nothing else: the signature, not the subject, says who decided.
  if (roles.includes('approver')) allowed.push(names.decisionSubject('>'));
  return allowed;
}

/**
 * A nats-server configuration for one team: JetStream on, the team in an account of its own (so
 * other teams on the same server see nothing of it), each member a user nkey with the publish
 * rights its roles give and replies only to its own inbox. NATS reads JSON as its config format.
 */
export function teamServerConfig(options: TeamServerConfigOptions): string {
  const names = teamNames(options.team);
  const users = options.members.map(({ member, nkey, roles }) =>
    roles.includes('admin')
      ? { nkey }
      : {
          nkey,
          permissions: {
            publish: { allow: publishAllowed(options.team, member, roles) },
            subscribe: { allow: [`${names.inbox(member)}.>`] },
          },
        },
  );
  const config = {
    listen: `${options.host ?? '0.0.0.0'}:${options.port}`,
    max_payload: options.maxPayloadBytes ?? 1024 * 1024,
    jetstream: { store_dir: options.storeDir },
    accounts: { [options.team]: { jetstream: 'enabled', users } },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
