import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { publicKeyText, signingKeyFromSeed } from './teamKeys';
import { TeamNameSchema } from './teamNames';

/** One approver the team trusts: a decision counts only when signed by one of these keys. */
export const ApproverSchema = z.object({
  /** Who it is, as consoles and the audit name them. */
  name: z.string().min(1).max(64),
  /** The approver's Ed25519 public key, raw 32 bytes in base64url. */
  publicKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'is a raw Ed25519 public key in base64url (43 characters)'),
});
export type Approver = z.infer<typeof ApproverSchema>;

/**
 * A team member's credentials file (`--team-creds FILE`), written by whoever runs the team's
 * server. It names the team and this member, carries the NATS login (a user nkey seed, whose public
 * half the server config lists with this member's permissions, or a user and password), this
 * member's Ed25519 signing key, and the team's approver list. Keep it readable by its owner only.
 */
export const TeamCredentialsSchema = z
  .object({
    /** The team: names its NATS account's subjects, streams and buckets. */
    team: TeamNameSchema,
    /** This member: a gate's id (its subjects are `toolgate.<team>.*.<member>`) or an approver console's. */
    member: TeamNameSchema,
    /** The NATS login. */
    nats: z.union([
      z.object({ nkeySeed: z.string().regex(/^SU[A-Z2-7]{56}$/, 'is a NATS user nkey seed (58 characters starting with SU)') }).strict(),
      z.object({ user: z.string().min(1).max(256), password: z.string().min(8).max(1024) }).strict(),
    ]),
    /** This member's Ed25519 signing key: the 32-byte seed in base64url. Signs its decisions and its checkpoints. */
    signingKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'is a 32-byte Ed25519 seed in base64url (43 characters)'),
    /** The approvers whose signed decisions the team's gates follow. */
    approvers: z.array(ApproverSchema).max(1000),
  })
  .strict();
export type TeamCredentialsFile = z.infer<typeof TeamCredentialsSchema>;

/** Credentials as read: the file's fields, the signing key loaded, and whether this member is an approver. */
export interface TeamCredentials extends TeamCredentialsFile {
  readonly key: KeyObject;
  readonly publicKey: string;
  /** This member's approver entry, when its key is in the list. */
  readonly approver?: Approver;
}

/** Reads and checks a credentials file; a clear GateError says what is wrong and how to fix it. */
export function loadTeamCredentials(file: string): TeamCredentials {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GateError('ENOTFOUND', `cannot read the team credentials ${file}: ${(error as Error).message}; pass the file the team's admin gave you with --team-creds`);
  }
  return parseTeamCredentials(text, file);
}

/** Checks credentials given as text (`file` names them in errors). */
export function parseTeamCredentials(text: string, file: string): TeamCredentials {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GateError('EVALIDATION', `the team credentials ${file} are not JSON: ${(error as Error).message}`);
  }
  const parsed = TeamCredentialsSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'} ${issue.message}`);
    throw new GateError('EVALIDATION', `the team credentials ${file} are not usable: ${problems.join('; ')}`);
  }
  const key = signingKeyFromSeed(parsed.data.signingKey);
  const publicKey = publicKeyText(key);
  const approver = parsed.data.approvers.find((entry) => entry.publicKey === publicKey);
  return { ...parsed.data, key, publicKey, ...(approver ? { approver } : {}) };
}
