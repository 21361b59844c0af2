import { describe, expect, it } from 'vitest';
import { AGENT_NAME_MAX_CHARS, AGENT_VERSION_MAX_CHARS, agentLabel, cleanAgentText } from '../../shared/agentName';
import { promptNotice } from '../../shared/promptNotice';
import { boundedAgent } from '../../main/mcp/agentDirectory';

/** Any character a name must not carry raw: controls, format and bidi characters, separators. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('cleanAgentText', () => {
  it('keeps an ordinary name as it is', () => {
    expect(cleanAgentText('claude-code', AGENT_NAME_MAX_CHARS)).toBe('claude-code');
    expect(cleanAgentText('Küche 😀 客户端', AGENT_NAME_MAX_CHARS)).toBe('Küche 😀 客户端');
  });

  it('makes one line of a name with line breaks, collapsing every run of whitespace', () => {
    expect(cleanAgentText('Toolgate\nrm -rf ~\r\n\t --path\u2028~/.ssh/id_rsa  ', AGENT_NAME_MAX_CHARS)).toBe('Toolgate rm -rf ~ --path ~/.ssh/id_rsa');
  });

  it('shows control, C1, DEL, format and bidi characters as escapes, never raw', () => {
    const cleaned = cleanAgentText('9\u0007\u001b[31mred\u0085\u009b\u007f\u202eexe\u2066\u200b', AGENT_NAME_MAX_CHARS);
    expect(cleaned).toBe('9\\u0007\\u001b[31mred\\u0085\\u009b\\u007f\\u202eexe\\u2066\\u200b');
    expect(cleaned).not.toMatch(HIDDEN);
  });

  it('cuts past the cap by characters, never inside a surrogate pair, and marks the cut', () => {
    expect(cleanAgentText('x'.repeat(5000), AGENT_NAME_MAX_CHARS)).toBe(`${'x'.repeat(AGENT_NAME_MAX_CHARS - 1)}…`);
    const emoji = cleanAgentText('😀'.repeat(100), AGENT_VERSION_MAX_CHARS);
    expect(Array.from(emoji)).toHaveLength(AGENT_VERSION_MAX_CHARS);
    expect(emoji).toBe(`${'😀'.repeat(AGENT_VERSION_MAX_CHARS - 1)}…`);
  });
});

describe('boundedAgent', () => {
  it('keeps the session’s own client whole after a forwarded name padded to push it out of sight', () => {
    const agent = boundedAgent({ name: 'evil-agent', version: '6.6' }, 'T', { name: `claude-code${' '.repeat(300)}`, version: '2.0.14' });
    expect(agent).toEqual({ client: 'claude-code', version: '2.0.14', via: { client: 'evil-agent', version: '6.6' }, sessionStartedAt: 'T' });
    expect(agentLabel(agent)).toBe('claude-code 2.0.14 via evil-agent 6.6');
    const long = boundedAgent({ name: 'evil-agent', version: '6.6' }, 'T', { name: 'c'.repeat(1000), version: 'v'.repeat(1000) });
    expect(agentLabel(long)).toMatch(/ via evil-agent 6\.6$/);
  });
});

describe('promptNotice', () => {
  it('names the tool and the cleaned agent in a fixed template, whatever the agent declared', () => {
    const notice = promptNotice({
      tool: 'write_file',
      agent: { client: 'Toolgate\nrm -rf ~ --path ~/.ssh/id_rsa', version: '9\u0007\u001b[31mred', sessionStartedAt: 'x' },
    });
    expect(notice.title).toBe('write_file is waiting for your approval');
    expect(notice.body).toBe('Asked by Toolgate rm -rf ~ --path ~/.ssh/id_rsa 9\\u0007\\u001b[31mred. Click to open the prompt.');
    expect(notice.body).not.toMatch(HIDDEN);
  });

  it('caps a long name and version and keeps the via part', () => {
    const notice = promptNotice({
      tool: 'write_file',
      agent: { client: `claude-code${' '.repeat(189)}x`.repeat(3), version: '\npath: /home/me/.ssh/id_rsa content: "ssh-rsa AAAA attacker"', via: { client: 'evil', version: '1' }, sessionStartedAt: 'x' },
    });
    expect(notice.body).not.toMatch(HIDDEN);
    expect(notice.body).toMatch(/^Asked by .{1,100} via evil 1\. Click to open the prompt\.$/u);
  });
});
