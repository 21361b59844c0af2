/**
 * Which recorded calls replay re-runs, judged from their audit records and the registry alone:
 * the reasons the detail pane and `audit replay` show. (The re-runs themselves are tested on a
 * real gate in test/integration/replay.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { AuditKind, AuditRecord } from '../../shared/audit';
import { hashCanonical } from '../../shared/hash';
import { callReplayability, replayability, replayableIn } from '../../main/audit/replay';
import { ToolRegistry } from '../../main/registry/registry';
import { BUILTIN_TOOLS } from '../../main/tools/builtinTools';

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) tools.register(tool);
  return tools;
}

/** A call's records, oldest first, with the payloads given. */
function records(...steps: Array<[AuditKind, Record<string, unknown>]>): AuditRecord[] {
  return steps.map(([kind, payload], index) => ({ seq: index + 1, callId: 'c1', kind, time: '2026-11-23T10:00:00.000Z', payload, prevHash: 'p', hash: 'h' }));
}

/** An echo call that ran and completed, its arguments recorded as given. */
function echoCall(recorded: unknown, ran: unknown, started: Record<string, unknown> = {}): AuditRecord[] {
  return records(
    ['invoked', { tool: 'echo', source: 'mcp', arguments: recorded }],
    ['policy', { decision: 'allow', rule: 'tier:SAFE' }],
    ['started', { tool: 'echo', version: '1.0.0', inputHash: hashCanonical(ran), ...started }],
    ['completed', { responseHash: 'r'.repeat(64), output: ran }],
  );
}

describe('replayability of a tool at a version', () => {
  it('says pure and deterministic read-only tools can be re-run', () => {
    expect(replayability(registry(), 'echo', '1.0.0')).toEqual({ possible: true, reason: 'echo 1.0.0 is pure: it can be re-run' });
    const readFile = registry().get('read_file')!.tool.manifest.version;
    expect(replayability(registry(), 'read_file', readFile)).toEqual({
      possible: true,
      reason: `read_file ${readFile} is deterministic and changes nothing: it can be re-run (its output also depends on what it reads, such as files)`,
    });
    expect(replayableIn(registry())('hash', '1.0.0').possible).toBe(true);
  });

  it('refuses tools that change things, tools that are not deterministic, and unknown tools', () => {
    expect(replayability(registry(), 'write_file', '1.0.0')).toMatchObject({ possible: false, reason: expect.stringMatching(/^write_file is not replayable: it declares FsWrite/) });
    expect(replayability(registry(), 'shell_exec', '1.0.0').possible).toBe(false);
    expect(replayability(registry(), 'http_fetch', '1.0.0')).toEqual({
      possible: false,
      reason: 'http_fetch is not deterministic (NonDeterministic): its output may differ on every run, so a comparison would say nothing',
    });
    expect(replayability(registry(), 'gone_tool', '1.0.0')).toEqual({ possible: false, reason: 'gone_tool is no longer registered: there is nothing to re-run it with' });
  });
});

describe('replayability of a recorded call', () => {
  it('re-runs a call whose recorded arguments are its whole input, sent as JSON text or as an object', () => {
    expect(callReplayability(registry(), echoCall({ text: 'hi' }, { text: 'hi' }))).toEqual({ possible: true, reason: 'echo 1.0.0 is pure: it can be re-run' });
    expect(callReplayability(registry(), echoCall('{"text":"raw"}', { text: 'raw' })).possible).toBe(true);
  });

  it('re-runs a call a person edited with the arguments that ran, not the ones the agent sent', () => {
    const edited = records(
      ['invoked', { tool: 'echo', source: 'mcp', arguments: { text: 'sent' } }],
      ['approval-decided', { outcome: 'approved', edit: { by: 'person', original: { text: 'sent' }, edited: { text: 'edited' } } }],
      ['started', { tool: 'echo', version: '1.0.0', inputHash: hashCanonical({ text: 'edited' }) }],
      ['completed', { responseHash: 'r'.repeat(64) }],
    );
    expect(callReplayability(registry(), edited).possible).toBe(true);
  });

  it('refuses a call whose arguments the audit cut or redacted, and one that ran with secrets', () => {
    expect(callReplayability(registry(), echoCall({ text: '$ENV.TOKEN' }, { text: 'the real value' }))).toEqual({
      possible: false,
      reason:
        'the recorded arguments are not the whole input (the audit cuts long strings and hides secrets; they do not hash to the input that ran): it is not re-run with a part of it',
    });
    const withSecret = echoCall({ text: '$ENV.TOKEN' }, { text: '$ENV.TOKEN' }, { secrets: ['TOKEN'] });
    expect(callReplayability(registry(), withSecret)).toEqual({
      possible: false,
      reason: "the call received secrets (TOKEN): the audit keeps only their placeholders, and it is not re-run with today's values in their place",
    });
  });

  it('refuses a call that never ran, naming why, and one that never finished', () => {
    const rejected = records(
      ['invoked', { tool: 'echo', source: 'mcp', arguments: { text: 1 } }],
      ['rejected', { step: 'validate', error: { code: 'EVALIDATION', message: 'invalid arguments for echo: text: expected string' }, responseHash: 'x' }],
    );
    expect(callReplayability(registry(), rejected).reason).toBe(
      'the call never ran (EVALIDATION: invalid arguments for echo: text: expected string): there is no response to compare',
    );
    const open = echoCall({ text: 'hi' }, { text: 'hi' }).slice(0, 3);
    expect(callReplayability(registry(), open).reason).toMatch(/^the call has no recorded response hash \(it has not finished/);
  });
});
