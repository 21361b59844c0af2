import type { AgentInfo } from './call';

/** Longest client name kept, in characters (code points): room for any real client's name, no room for a message. */
export const AGENT_NAME_MAX_CHARS = 64;
/** Longest client version kept, in characters: a version string, not a sentence. */
export const AGENT_VERSION_MAX_CHARS = 32;

/** Control, format (bidi, zero-width) and separator characters, and lone surrogates: never part of a name. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * A name or version an agent declared, made fit to show: one line (every run of whitespace, line
 * breaks included, becomes one space), every other control, format or bidi character shown as its
 * `\uXXXX` escape rather than obeyed, and at most `maxChars` characters, the last one `…` when cut.
 */
export function cleanAgentText(text: string, maxChars: number): string {
  const oneLine = text
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(HIDDEN, (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  const chars = Array.from(oneLine);
  return chars.length <= maxChars ? oneLine : `${chars.slice(0, maxChars - 1).join('')}…`;
}

/** How the console, the audit and notifications name an agent: `claude-code 2.0.14 via toolgate-stdio-bridge 0.1.0`. */
export function agentLabel(agent: Pick<AgentInfo, 'client' | 'version' | 'via'>): string {
  const own = `${agent.client} ${agent.version}`;
  return agent.via ? `${own} via ${agent.via.client} ${agent.via.version}` : own;
}

/**
 * Prefix of the agent-session keys the gate derives from what a sessionless (MCP 2026-07-28) client
 * declares about itself, rather than issues. Such a key names every client that declares the same
 * name and version, so nothing that must belong to one agent alone (a session grant) may hang on it.
 */
export const DECLARED_AGENT_SESSION_PREFIX = 'declared-';

/** Whether an agent-session key was derived from a declared name (see DECLARED_AGENT_SESSION_PREFIX), not issued by the gate. */
export function isDeclaredAgentSession(agentSession: string | undefined): boolean {
  return agentSession?.startsWith(DECLARED_AGENT_SESSION_PREFIX) ?? false;
}
