/**
 * The JSONL and OTLP exports of calls a real gate wrote: a completed call, one a written rule
 * denied, one whose prompt timed out and one whose tool failed. What a collector or a script would
 * read from each, and that arguments and outputs are in the file only when asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportChunks, exportFileName, type CallSource, type ExportedCall } from '../../main/audit/exportCalls';
import { exportView } from '../../main/audit/exportView';
import { EDITED_CONTENT, gatedCalls, SECRET_CONTENT, type GatedCalls } from './exportFixture';
import { attributeMap, otlpProblems } from './otlpShape';

let gated: GatedCalls;
let calls: ExportedCall[];

beforeAll(async () => {
  gated = await gatedCalls();
  calls = [gated.ids.completed, gated.ids.denied, gated.ids.timedOut, gated.ids.failed].map((id) => gated.exported(id));
});

afterAll(async () => {
  await gated?.close();
});

function exportText(format: 'jsonl' | 'otlp', content: boolean): string {
  return [...exportChunks(calls, { format, content })].join('');
}

type Span = { name: string; traceId: string; spanId: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes: Array<{ key: string; value: Record<string, unknown> }>; events: Array<{ name: string; timeUnixNano: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }>; status: { code: number; message?: string } };

function spansOf(text: string): Span[] {
  return JSON.parse(text).resourceSpans[0].scopeSpans[0].spans as Span[];
}

describe('JSONL export', () => {
  it('writes one object per call per line with its outcome, decision and the seq/kind/time/hash of each record', () => {
    const lines = exportText('jsonl', false).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(4);
    const [completed, denied, timedOut, failed] = lines;
    expect(completed).toMatchObject({ callId: gated.ids.completed, tool: 'read_file', outcome: 'completed', decision: 'allow', decider: 'default' });
    expect(denied).toMatchObject({ callId: gated.ids.denied, tool: 'write_file', outcome: 'rejected', decision: 'deny', decider: 'rule', errorCode: 'EDENIED' });
    expect(timedOut).toMatchObject({ outcome: 'rejected', decision: 'ask', decider: 'timeout', errorCode: 'EDENIED' });
    expect(failed).toMatchObject({ outcome: 'failed', errorCode: 'ERUNTIME' });
    const records = gated.records(gated.ids.timedOut);
    expect(timedOut.records).toEqual(records.map((record) => ({ seq: record.seq, kind: record.kind, time: record.time, hash: record.hash })));
    expect(timedOut.records.map((record: { kind: string }) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'rejected']);
  });

  it('leaves arguments and outputs out unless content is asked for', () => {
    const without = exportText('jsonl', false);
    expect(without).not.toContain(SECRET_CONTENT.slice(0, 12));
    const lines = exportText('jsonl', true).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines[0].arguments).toEqual({ path: 'plan.txt' });
    expect(lines[0].result).toMatchObject({ content: `${SECRET_CONTENT}\n` });
    expect(lines[1].arguments).toEqual({ path: 'private/x.txt', content: SECRET_CONTENT });
    expect(lines[1]).not.toHaveProperty('result');
  });
});

describe('OTLP export', () => {
  it('is a valid OTLP/HTTP JSON ExportTraceServiceRequest', () => {
    for (const content of [false, true]) {
      const request = JSON.parse(exportText('otlp', content));
      expect(otlpProblems(request)).toEqual([]);
      expect(request.resourceSpans[0].scopeSpans[0].spans).toHaveLength(4);
    }
  });

  it('names each span after its tool with the GenAI tool-execution attributes, and marks refusals and failures as errors', () => {
    const [completed, denied, timedOut, failed] = spansOf(exportText('otlp', false));
    expect(completed!.name).toBe('execute_tool read_file');
    expect(completed!.kind).toBe(1);
    expect(attributeMap(completed!.attributes)).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': gated.ids.completed,
      'gen_ai.tool.type': 'function',
      'toolgate.outcome': 'completed',
      'toolgate.decision': 'allow',
      'toolgate.decider': 'default',
      'toolgate.tier': 'STANDARD',
    });
    expect(attributeMap(completed!.attributes)).not.toHaveProperty('error.type');
    // Unset (0), as OpenTelemetry asks of instrumentation for a success; never OK (1).
    expect(completed!.status.code).toBe(0);

    expect(attributeMap(denied!.attributes)).toMatchObject({ 'error.type': 'EDENIED', 'toolgate.decider': 'rule', 'toolgate.outcome': 'rejected' });
    expect(String(attributeMap(denied!.attributes)['toolgate.rule'])).toContain('write_file(private/**)');
    expect(denied!.status.code).toBe(2);
    expect(attributeMap(timedOut!.attributes)).toMatchObject({ 'error.type': 'EDENIED', 'toolgate.decider': 'timeout' });
    expect(Number(attributeMap(timedOut!.attributes)['toolgate.waited_ms'])).toBeGreaterThanOrEqual(250);
    expect(attributeMap(failed!.attributes)).toMatchObject({ 'error.type': 'ERUNTIME' });
    expect(failed!.status.code).toBe(2);
    expect(Number(attributeMap(failed!.attributes)['toolgate.ran_ms'])).toBeGreaterThanOrEqual(0);
  });

  it('ties each span to the log: first/last seq and hashes, one event per record at its time', () => {
    const timedOut = spansOf(exportText('otlp', false))[2]!;
    const records = gated.records(gated.ids.timedOut);
    const attributes = attributeMap(timedOut.attributes);
    expect(attributes['toolgate.audit.first_seq']).toBe(String(records[0]!.seq));
    expect(attributes['toolgate.audit.last_seq']).toBe(String(records.at(-1)!.seq));
    expect(attributes['toolgate.audit.last_hash']).toBe(records.at(-1)!.hash);
    expect(timedOut.events.map((event) => event.name)).toEqual(records.map((record) => record.kind));
    expect(timedOut.events.map((event) => event.timeUnixNano)).toEqual(records.map((record) => `${Date.parse(record.time)}000000`));
    expect(attributeMap(timedOut.events[4]!.attributes)).toMatchObject({ 'toolgate.approval.outcome': 'expired' });
    expect(timedOut.startTimeUnixNano).toBe(`${Date.parse(records[0]!.time)}000000`);
    expect(timedOut.endTimeUnixNano).toBe(`${Date.parse(records.at(-1)!.time)}000000`);
  });

  it('puts one agent session in one trace, derives ids the same way every time, and gives each call its own span', () => {
    const spans = spansOf(exportText('otlp', false));
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(4);
    expect(spansOf(exportText('otlp', false)).map((span) => span.spanId)).toEqual(spans.map((span) => span.spanId));
  });

  it('carries arguments and results as GenAI attributes only when content is asked for', () => {
    expect(exportText('otlp', false)).not.toContain(SECRET_CONTENT.slice(0, 12));
    const [completed, denied] = spansOf(exportText('otlp', true));
    const attributes = attributeMap(completed!.attributes);
    expect(JSON.parse(String(attributes['gen_ai.tool.call.arguments']))).toEqual({ path: 'plan.txt' });
    expect(JSON.parse(String(attributes['gen_ai.tool.call.result']))).toMatchObject({ content: `${SECRET_CONTENT}\n` });
    expect(attributeMap(denied!.attributes)).not.toHaveProperty('gen_ai.tool.call.result');
  });

  it('writes an empty export as a valid request with no spans', () => {
    const text = [...exportChunks([], { format: 'otlp', content: false })].join('');
    expect(otlpProblems(JSON.parse(text))).toEqual([]);
    expect(spansOf(text)).toEqual([]);
    expect([...exportChunks([], { format: 'jsonl', content: false })].join('')).toBe('');
  });
});

describe('text that could act on a terminal or editor', () => {
  it('is escaped in the JSON and reads back the same', () => {
    const call = calls[0]!;
    const tricky = { ...call, row: { ...call.row, argsBrief: 'a\u202Eevil\u2028b\u009bc' } };
    const text = [...exportChunks([tricky], { format: 'jsonl', content: true })].join('');
    expect(text).toContain('a\\u202eevil\\u2028b\\u009bc');
    expect(text).not.toMatch(/[\u202e\u2028\u009b]/);
    expect(JSON.parse(text).argsBrief).toBe('a\u202Eevil\u2028b\u009bc');
  });
});

describe('export file names', () => {
  it('say what and when, with no characters a file system refuses', () => {
    const now = new Date('2026-11-23T14:05:09.123Z');
    expect(exportFileName('jsonl', now)).toBe('toolgate-calls-2026-11-23T14-05-09Z.jsonl');
    expect(exportFileName('otlp', now)).toBe('toolgate-calls-2026-11-23T14-05-09Z.otlp.json');
  });
});

describe("the console's export of its view", () => {
  /** Newest first, as the explorer's query gives them, filtered by tool. */
  const source: CallSource = (_store, filter) => [...calls].reverse().map((call) => call.row).filter((row) => !filter.tool || filter.tool.includes(row.tool));
  const now = new Date('2026-11-23T14:05:09Z');

  it('exports every matching call with their records when they fit, and names the file', () => {
    const result = exportView(gated.running.gate.audit, { filter: { tool: ['write_file'] }, format: 'jsonl', content: false }, source, { now });
    expect(result.calls).toBe(2);
    expect(result.cut).toBeUndefined();
    expect(result.fileName).toBe('toolgate-calls-2026-11-23T14-05-09Z.jsonl');
    const lines = result.text.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.callId)).toEqual([gated.ids.timedOut, gated.ids.denied]);
    expect(lines[0].records).toHaveLength(6);
    expect(result.text).not.toContain(SECRET_CONTENT.slice(0, 12));
  });

  it('stops at its limit and says the export was cut, newest calls kept', () => {
    const result = exportView(gated.running.gate.audit, { filter: {}, format: 'otlp', content: true }, source, { now, limit: 3 });
    expect(result).toMatchObject({ calls: 3, cut: true, fileName: 'toolgate-calls-2026-11-23T14-05-09Z.otlp.json' });
    const request = JSON.parse(result.text);
    expect(otlpProblems(request)).toEqual([]);
    expect(spansOf(result.text).map((span) => attributeMap(span.attributes)['gen_ai.tool.call.id'])).toEqual([gated.ids.failed, gated.ids.timedOut, gated.ids.denied]);
    expect(result.text).toContain(SECRET_CONTENT);
  });

  it('also stops once the text reaches its size budget (outputs can be large), still a whole, valid file', () => {
    const result = exportView(gated.running.gate.audit, { filter: {}, format: 'otlp', content: true }, source, { now, maxChars: 1 });
    expect(result).toMatchObject({ calls: 1, cut: true });
    expect(otlpProblems(JSON.parse(result.text))).toEqual([]);
    const jsonl = exportView(gated.running.gate.audit, { filter: {}, format: 'jsonl', content: false }, source, { now, maxChars: 1 });
    expect(jsonl).toMatchObject({ calls: 1, cut: true });
    expect(jsonl.text.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('exportCalls over the console bridge', () => {
  it("exports the explorer's filtered view through the gate's handler, without content unless asked", async () => {
    const handlers = gated.running.backend.handlers;
    const plain = await handlers.exportCalls({ filter: { outcome: ['rejected'] }, format: 'jsonl', content: false });
    expect(plain.calls).toBe(2);
    expect(plain.cut).toBeUndefined();
    expect(plain.fileName).toMatch(/^toolgate-calls-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.jsonl$/);
    expect(plain.text.trimEnd().split('\n').map((line) => JSON.parse(line).callId)).toEqual([gated.ids.timedOut, gated.ids.denied]);
    expect(plain.text).not.toContain(SECRET_CONTENT.slice(0, 12));
    const withContent = await handlers.exportCalls({ filter: { tool: ['read_file'] }, format: 'otlp', content: true });
    expect(withContent.calls).toBe(2);
    expect(otlpProblems(JSON.parse(withContent.text))).toEqual([]);
    expect(withContent.text).toContain(SECRET_CONTENT);
  });
});

describe('a call a person edited before approving', () => {
  it('exports what it ran with as the GenAI arguments, the agent’s own beside them', async () => {
    const withEdit = await gatedCalls({ edited: true });
    try {
      const call = withEdit.exported(withEdit.ids.edited!);
      const [line] = [...exportChunks([call], { format: 'jsonl', content: true })].map((text) => JSON.parse(text));
      expect(line.arguments).toEqual({ path: 'edited.txt', content: SECRET_CONTENT });
      expect(line.editedArguments).toEqual({ path: 'edited.txt', content: `${EDITED_CONTENT}\n` });
      expect(line).toMatchObject({ outcome: 'completed', decider: 'person' });
      const [span] = spansOf([...exportChunks([call], { format: 'otlp', content: true })].join(''));
      const attributes = attributeMap(span!.attributes);
      expect(JSON.parse(String(attributes['gen_ai.tool.call.arguments']))).toEqual({ path: 'edited.txt', content: `${EDITED_CONTENT}\n` });
      expect(JSON.parse(String(attributes['toolgate.agent_arguments']))).toEqual({ path: 'edited.txt', content: SECRET_CONTENT });
      expect([...exportChunks([call], { format: 'otlp', content: false })].join('')).not.toContain(EDITED_CONTENT);
      expect([...exportChunks([call], { format: 'jsonl', content: false })].join('')).not.toContain(EDITED_CONTENT);
    } finally {
      await withEdit.close();
    }
  });
});
