import { createUser } from '@nats-io/nkeys';
import { teamServerConfig, type TeamRole } from './serverConfig';
import type { TeamCredentialsFile } from './teamCredentials';
import { newSigningKey } from './teamKeys';

/** A new team's members: its gates and its approvers (a name in both is a gate whose person approves for the team). */
export interface NewTeam {
  team: string;
  gates: readonly string[];
  approvers: readonly string[];
  /** Where the server listens and keeps its streams. */
  host?: string;
  port: number;
  storeDir: string;
}

/** What a new team is made of: the server config, and each member's credentials (the admin's among them) with its roles. */
export interface MadeTeam {
  config: string;
  members: Array<{ member: string; roles: TeamRole[]; credentials: TeamCredentialsFile; publicKey: string }>;
}

/**
 * Makes a team: a NATS user nkey and an Ed25519 signing key for every member and an admin, the
 * approver list (every approver's public key, in every member's credentials), and the server config
 * giving each member its publish rights. The seeds exist only in the credentials returned.
 */
export function makeTeam(spec: NewTeam): MadeTeam {
  const names = [...new Set([...spec.gates, ...spec.approvers, 'admin'])];
  const made = names.map((member) => {
    const roles: TeamRole[] = member === 'admin' ? ['admin'] : [...(spec.gates.includes(member) ? ['gate' as const] : []), ...(spec.approvers.includes(member) ? ['approver' as const] : [])];
    return { member, roles, nkey: createUser(), signing: newSigningKey() };
  });
  const approvers = made.filter((entry) => entry.roles.includes('approver')).map((entry) => ({ name: entry.member, publicKey: entry.signing.publicKey }));
  const config = teamServerConfig({
    team: spec.team,
    ...(spec.host ? { host: spec.host } : {}),
    port: spec.port,
    storeDir: spec.storeDir,
    members: made.map((entry) => ({ member: entry.member, nkey: entry.nkey.getPublicKey(), roles: entry.roles })),
  });
  return {
    config,
    members: made.map((entry) => ({
      member: entry.member,
      roles: entry.roles,
      publicKey: entry.signing.publicKey,
      credentials: { team: spec.team, member: entry.member, nats: { nkeySeed: new TextDecoder().decode(entry.nkey.getSeed()) }, signingKey: entry.signing.seed, approvers },
    })),
  };
}
