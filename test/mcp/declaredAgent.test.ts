/**
 * Who a sessionless (2026-07-28) request is from: the client its envelope declares, bounded and
 * cleaned as a session's is, and the key its prompts are counted under.
 */
import { describe, expect, it } from 'vitest';
import { AgentDirectory } from '../../main/mcp/agentDirectory';
import { CLIENT_INFO_ENVELOPE_KEY, declaredCaller } from '../../main/mcp/declaredAgent';
import { isDeclaredAgentSession } from '../../shared/agentName';

const envelope = (name: unknown, version: unknown = '1.0') => ({ [CLIENT_INFO_ENVELOPE_KEY]: { name, version } });

describe('declaredCaller', () => {
  it('names the declared client, cut and cleaned to one line, and keys it under a declared- key', () => {
    const caller = declaredCaller(envelope(`evil\u202e\nname${'x'.repeat(500)}`, '9'.repeat(100)), undefined)!;
    expect(caller.agent.client).toHaveLength(64);
    expect(caller.agent.client).toMatch(/^evil\\u202e namex+…$/);
    expect(Array.from(caller.agent.version)).toHaveLength(32);
    expect(caller.agentSession).toMatch(/^declared-[0-9a-f]{32}$/);
    expect(isDeclaredAgentSession(caller.agentSession)).toBe(true);
    expect(isDeclaredAgentSession('8c1f0e9a-session-id-the-gate-issued')).toBe(false);
  });

  it('keys one declared identity the same every time, and a forwarded name apart, shown ahead of the own client', () => {
    const agents = new AgentDirectory();
    const first = declaredCaller(envelope('claude-code', '2.1.0'), undefined, agents)!;
    const again = declaredCaller(envelope('claude-code', '2.1.0'), undefined, agents)!;
    expect(again.agentSession).toBe(first.agentSession);
    expect(again.agent.sessionStartedAt).toBe(first.agent.sessionStartedAt);
    expect(agents.name(first.agentSession)).toBe(`claude-code 2.1.0, session since ${first.agent.sessionStartedAt}`);
    expect(declaredCaller(envelope('claude-code', '2.1.1'), undefined)!.agentSession).not.toBe(first.agentSession);
    const bridged = declaredCaller(envelope('toolgate-stdio-bridge', '0.1.0'), { name: 'cursor', version: '1' })!;
    expect(bridged.agent).toMatchObject({ client: 'cursor', version: '1', via: { client: 'toolgate-stdio-bridge', version: '0.1.0' } });
  });

  it('is undefined when the envelope names no client, or names it in the wrong shape', () => {
    expect(declaredCaller(undefined, undefined)).toBeUndefined();
    expect(declaredCaller({}, undefined)).toBeUndefined();
    expect(declaredCaller(envelope(42), undefined)).toBeUndefined();
    expect(declaredCaller({ [CLIENT_INFO_ENVELOPE_KEY]: { name: 'no-version' } }, undefined)).toBeUndefined();
  });
});
