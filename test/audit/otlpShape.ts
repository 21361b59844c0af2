/**
 * The OTLP/HTTP JSON encoding's rules an ExportTraceServiceRequest must keep, checked the way a
 * collector reads it: lower-case hex ids of 32/16 characters, times as decimal strings, enums as
 * numbers, every attribute value one of the typed value objects. Returns what is wrong.
 */
const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const DECIMAL = /^\d+$/;

function checkAttributes(where: string, attributes: unknown, problems: string[]): void {
  if (!Array.isArray(attributes)) {
    problems.push(`${where}: attributes is not an array`);
    return;
  }
  const keys = new Set<string>();
  for (const attribute of attributes as Array<{ key?: unknown; value?: Record<string, unknown> }>) {
    if (typeof attribute.key !== 'string' || attribute.key === '') problems.push(`${where}: an attribute has no key`);
    if (keys.has(attribute.key as string)) problems.push(`${where}: attribute ${String(attribute.key)} twice`);
    keys.add(attribute.key as string);
    const value = attribute.value ?? {};
    const fields = Object.keys(value);
    if (fields.length !== 1) {
      problems.push(`${where}: ${String(attribute.key)} has ${fields.length} value fields`);
      continue;
    }
    const [field] = fields;
    const ok =
      (field === 'stringValue' && typeof value.stringValue === 'string') ||
      (field === 'intValue' && typeof value.intValue === 'string' && /^-?\d+$/.test(value.intValue)) ||
      (field === 'boolValue' && typeof value.boolValue === 'boolean') ||
      (field === 'doubleValue' && typeof value.doubleValue === 'number');
    if (!ok) problems.push(`${where}: ${String(attribute.key)} has a bad ${field}: ${JSON.stringify(value)}`);
  }
}

/** Every breach of the OTLP JSON rules in a parsed request (empty when it keeps them all). */
export function otlpProblems(request: unknown): string[] {
  const problems: string[] = [];
  const resourceSpans = (request as { resourceSpans?: unknown }).resourceSpans;
  if (!Array.isArray(resourceSpans)) return ['resourceSpans is not an array'];
  for (const resourceSpan of resourceSpans) {
    checkAttributes('resource', resourceSpan.resource?.attributes ?? [], problems);
    if (!Array.isArray(resourceSpan.scopeSpans)) problems.push('scopeSpans is not an array');
    for (const scopeSpan of resourceSpan.scopeSpans ?? []) {
      if (typeof scopeSpan.scope?.name !== 'string') problems.push('scope has no name');
      for (const span of scopeSpan.spans ?? []) {
        const where = `span ${span.name}`;
        if (!HEX32.test(span.traceId)) problems.push(`${where}: traceId ${span.traceId}`);
        if (!HEX16.test(span.spanId)) problems.push(`${where}: spanId ${span.spanId}`);
        if (typeof span.name !== 'string' || span.name === '') problems.push('a span has no name');
        if (!Number.isInteger(span.kind) || span.kind < 0 || span.kind > 5) problems.push(`${where}: kind ${span.kind}`);
        for (const field of ['startTimeUnixNano', 'endTimeUnixNano'] as const) {
          if (typeof span[field] !== 'string' || !DECIMAL.test(span[field])) problems.push(`${where}: ${field} ${JSON.stringify(span[field])}`);
        }
        if (BigInt(span.endTimeUnixNano) < BigInt(span.startTimeUnixNano)) problems.push(`${where}: ends before it starts`);
        checkAttributes(where, span.attributes, problems);
        for (const event of span.events ?? []) {
          if (typeof event.timeUnixNano !== 'string' || !DECIMAL.test(event.timeUnixNano)) problems.push(`${where}: event ${event.name} time ${event.timeUnixNano}`);
          checkAttributes(`${where} event ${event.name}`, event.attributes ?? [], problems);
        }
        if (span.status && (!Number.isInteger(span.status.code) || span.status.code < 0 || span.status.code > 2)) problems.push(`${where}: status ${JSON.stringify(span.status)}`);
      }
    }
  }
  return problems;
}

/** A span's attributes as a plain key → value map (the typed value unwrapped). */
export function attributeMap(attributes: Array<{ key: string; value: Record<string, unknown> }>): Record<string, unknown> {
  return Object.fromEntries(attributes.map((attribute) => [attribute.key, Object.values(attribute.value)[0]]));
}
