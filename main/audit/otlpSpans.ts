/**
 * One gated call as an OpenTelemetry span, in the OTLP/HTTP JSON encoding (ids as hex, times as
 * decimal strings of nanoseconds, enums as numbers, attribute values as `{stringValue|intValue|…}`).
 *
 * Attribute names follow the OpenTelemetry GenAI semantic conventions for tool execution, as
 * published in semantic-conventions v1.41.0 (docs/gen-ai/gen-ai-agent-spans.md, "Execute tool
 * span"; status Development): span name `execute_tool {gen_ai.tool.name}`, kind INTERNAL,
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`,
 * `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result` (opt-in: sensitive) and `error.type`.
 * What the conventions have no name for is under `toolgate.*`.
 */
import { createHash } from 'node:crypto';
import type { AuditRecord } from '../../shared/audit';
import type { CallRow } from '../../shared/explorer';

/** A call to export: its explorer row and its records, oldest first. */
export interface ExportedCall {
  row: CallRow;
  records: readonly AuditRecord[];
}

/** An OTLP attribute value: exactly one of its typed fields. */
export type OtlpAnyValue = { stringValue: string } | { intValue: string } | { boolValue: boolean } | { doubleValue: number };

/** An OTLP key/value attribute. */
export interface OtlpAttribute {
  key: string;
  value: OtlpAnyValue;
}

/** A span event (one audit record). */
export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpAttribute[];
}

/** A span as OTLP/HTTP JSON carries it. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events: OtlpEvent[];
  status: { code: number; message?: string };
}

/** OTLP's SpanKind and StatusCode enum values (the JSON encoding writes enums as numbers). */
export const SPAN_KIND_INTERNAL = 1;
export const STATUS_UNSET = 0;
export const STATUS_ERROR = 2;

/** The instrumentation scope the spans are written under. */
export const OTLP_SCOPE = { name: 'toolgate.audit', version: '1' } as const;

/** The resource every exported span belongs to. */
export const OTLP_RESOURCE = { attributes: [stringAttribute('service.name', 'toolgate')] };

/** Options of a span: `content` adds the call's arguments and result (they may hold private data). */
export interface SpanOptions {
  content: boolean;
}

function stringAttribute(key: string, value: string): OtlpAttribute {
  return { key, value: { stringValue: value } };
}

/** An attribute for any plain value; undefined leaves it out. Integers travel as strings (int64 in JSON). */
function attribute(key: string, value: string | number | boolean | undefined): OtlpAttribute | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return stringAttribute(key, value);
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  return Number.isInteger(value) ? { key, value: { intValue: String(value) } } : { key, value: { doubleValue: value } };
}

/** First `hexChars` hex digits of SHA-256 over a label and a value: stable ids from the log's own ids. */
function hexId(label: string, value: string, hexChars: number): string {
  return createHash('sha256').update(`${label}\0${value}`).digest('hex').slice(0, hexChars);
}

/** The trace of a call: its agent session's, so one session's calls share a trace; a call without one is its own trace. */
export function traceIdOf(row: Pick<CallRow, 'callId' | 'session'>): string {
  return row.session ? hexId('toolgate-session', row.session, 32) : hexId('toolgate-call', row.callId, 32);
}

/** The span id of a call, from its call id. */
export function spanIdOf(callId: string): string {
  return hexId('toolgate-span', callId, 16);
}

/** An ISO 8601 time as Unix nanoseconds in a decimal string. */
export function unixNano(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`audit time ${JSON.stringify(iso)} is not an ISO 8601 time`);
  return (BigInt(ms) * 1_000_000n).toString();
}

function payloadOf(records: readonly AuditRecord[], kind: AuditRecord['kind']): Record<string, unknown> | undefined {
  const payload = records.find((record) => record.kind === kind)?.payload;
  return payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : undefined;
}

/**
 * The call's arguments as the log holds them (secrets already out), the arguments it ran with when a
 * person edited them before approving, and its output when it completed.
 */
export function callContent(records: readonly AuditRecord[]): { arguments?: unknown; editedArguments?: unknown; result?: unknown } {
  const invoked = payloadOf(records, 'invoked');
  const edit = payloadOf(records, 'approval-decided')?.edit;
  const completed = payloadOf(records, 'completed');
  return {
    ...(invoked && 'arguments' in invoked ? { arguments: invoked.arguments } : {}),
    ...(edit && typeof edit === 'object' && 'edited' in edit ? { editedArguments: edit.edited } : {}),
    ...(completed && 'output' in completed ? { result: completed.output } : {}),
  };
}

/** What a record adds to its event beyond its seq and hash: the answer of a prompt, the error of an end. */
function eventDetail(record: AuditRecord): Array<OtlpAttribute | undefined> {
  const payload = (record.payload && typeof record.payload === 'object' ? record.payload : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  switch (record.kind) {
    case 'policy':
      return [attribute('toolgate.decision', text(payload.decision)), attribute('toolgate.rule', text(payload.rule))];
    case 'approval-requested':
      return [attribute('toolgate.approval.id', text(payload.approvalId)), attribute('toolgate.approval.expires_at', text(payload.expiresAt))];
    case 'approval-decided':
      return [attribute('toolgate.approval.outcome', text(payload.outcome)), attribute('toolgate.approval.reason', text(payload.reason))];
    case 'failed':
    case 'rejected': {
      const error = (payload.error ?? {}) as Record<string, unknown>;
      return [attribute('error.type', text(error.code)), attribute('toolgate.step', text(payload.step))];
    }
    default:
      return [];
  }
}

function present(attributes: Array<OtlpAttribute | undefined>): OtlpAttribute[] {
  return attributes.filter((item): item is OtlpAttribute => item !== undefined);
}

/** The span of one call: GenAI tool-execution attributes, Toolgate's decision and audit anchors, one event per record. */
export function callSpan(call: ExportedCall, options: SpanOptions): OtlpSpan {
  const { row, records } = call;
  const first = records[0];
  const last = records.at(-1);
  const start = unixNano(row.time);
  const end = last ? unixNano(last.time) : start;
  const failed = row.outcome === 'failed' || row.outcome === 'rejected' || row.outcome === 'interrupted';
  const errorType = failed ? (row.errorCode ?? row.outcome) : undefined;
  const content = options.content ? callContent(records) : {};
  const attributes = present([
    attribute('gen_ai.operation.name', 'execute_tool'),
    attribute('gen_ai.tool.name', row.tool),
    attribute('gen_ai.tool.call.id', row.callId),
    attribute('gen_ai.tool.type', 'function'),
    attribute('error.type', errorType),
    // What the tool ran with: a person's edit when there was one (the agent's own arguments beside it).
    attribute('gen_ai.tool.call.arguments', 'editedArguments' in content ? JSON.stringify(content.editedArguments) : 'arguments' in content ? JSON.stringify(content.arguments) : undefined),
    attribute('toolgate.agent_arguments', 'editedArguments' in content ? JSON.stringify(content.arguments) : undefined),
    attribute('gen_ai.tool.call.result', 'result' in content ? JSON.stringify(content.result) : undefined),
    attribute('toolgate.outcome', row.outcome),
    attribute('toolgate.decision', row.decision),
    attribute('toolgate.decider', row.decider),
    attribute('toolgate.decided_detail', row.decidedDetail),
    attribute('toolgate.rule', row.rule),
    attribute('toolgate.tier', row.tier),
    attribute('toolgate.agent', row.agent),
    attribute('toolgate.session', row.session),
    attribute('toolgate.source', row.source),
    attribute('toolgate.waited_ms', row.waitedMs),
    attribute('toolgate.ran_ms', row.ranMs),
    attribute('toolgate.audit.first_seq', first?.seq),
    attribute('toolgate.audit.last_seq', last?.seq),
    attribute('toolgate.audit.first_hash', first?.hash),
    attribute('toolgate.audit.last_hash', last?.hash),
  ]);
  const events = records.map((record) => ({
    timeUnixNano: unixNano(record.time),
    name: record.kind,
    attributes: present([attribute('toolgate.audit.seq', record.seq), attribute('toolgate.audit.hash', record.hash), ...eventDetail(record)]),
  }));
  // OpenTelemetry's tracing API: instrumentation SHOULD leave a successful span's status Unset (OK is
  // for an application that overrides a status it decided on); only a failure sets one.
  const status = failed ? { code: STATUS_ERROR, message: `${errorType}${row.outcome === 'rejected' ? ' (refused)' : ''}` } : { code: STATUS_UNSET };
  return {
    traceId: traceIdOf(row),
    spanId: spanIdOf(row.callId),
    name: `execute_tool ${row.tool}`,
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: start,
    endTimeUnixNano: BigInt(end) < BigInt(start) ? start : end,
    attributes,
    events,
    status,
  };
}

/** The ExportTraceServiceRequest text around spans: what comes before the first and after the last. */
export function otlpEnvelope(): { head: string; tail: string } {
  const whole = JSON.stringify({ resourceSpans: [{ resource: OTLP_RESOURCE, scopeSpans: [{ scope: OTLP_SCOPE, spans: [] }] }] });
  const at = whole.indexOf('"spans":[') + '"spans":['.length;
  return { head: whole.slice(0, at), tail: whole.slice(at) };
}

/** A whole ExportTraceServiceRequest for a few spans (the streaming exporter's POST body). */
export function otlpRequest(spans: readonly OtlpSpan[]): string {
  const { head, tail } = otlpEnvelope();
  return `${head}${spans.map((span) => JSON.stringify(span)).join(',')}${tail}`;
}
