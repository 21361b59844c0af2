import { z } from 'zod';
import { GateError } from '../../../shared/errors';
import { placeholdersIn } from '../../secrets/placeholders';
import { fetchWithin } from '../httpFetch';
import { parseFetchUrl } from '../netAccess';
import type { ManifestFile, SourceLoader } from './manifestFile';
import { checkTemplateFields, fillTemplate, isWholePlaceholder, templateFields } from './templates';

const MIB = 1024 * 1024;
/** Body bytes read when the manifest's bounds name no network.maxBytes; never more than http_fetch's 10 MiB. */
const DEFAULT_MAX_BYTES = MIB;
const MAX_MAX_BYTES = 10 * MIB;
/** One deadline over the whole request, as http_fetch has, kept under the tool's own timeout. */
const DEADLINE_MARGIN_MS = 2_000;

const HeaderValueSchema = z.string().refine((value) => !/[\r\n\0]/.test(value), { error: 'may not hold a line break or NUL' });

/** An HTTP tool's `source`: a request built from the call's fields. */
export const HttpSourceSchema = z
  .object({
    kind: z.literal('http'),
    method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
    /** The URL; `{{field}}` only in its path, query or fragment, each value URL-encoded. */
    url: z.string(),
    /** Request headers; values may hold `{{field}}` and `$ENV.NAME` secrets. */
    headers: z
      .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: 'is not a header name: letters, digits and - only' }), HeaderValueSchema)
      .default({}),
    /** The body: a string template sent as it is, or a JSON value whose string leaves are templates (sent as JSON). */
    body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
    /** How the response body is read: `json` (the value) or `text` ({ status, text }); a HEAD gives { status }. */
    response: z.enum(['json', 'text']).default('json'),
  })
  .strict();
export type HttpSource = z.infer<typeof HttpSourceSchema>;

/**
 * Loads an HTTP tool. Its endpoint (scheme, host and port) is fixed in the manifest, so the gate
 * checks it against the net grants for every call exactly as http_fetch's URL (the tool declares
 * the endpoint, see checkCapabilities); the request goes out through http_fetch's own code:
 * public addresses only unless granted by name, same-host redirects only, the body capped.
 */
export const loadHttpSource: SourceLoader = async (manifest, manifestPath) => {
  const parsed = HttpSourceSchema.safeParse(manifest.source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.${issue.path.join('.')}: ${issue.message}`);
  }
  const source = parsed.data;
  const endpoint = checkEndpoint(source.url, manifestPath);
  checkDeclarations(manifest, source, manifestPath);
  for (const [template, where] of templatesOf(source)) checkTemplateFields(template, manifest.inputSchema, manifestPath, where);
  const secrets = placeholdersIn([source.headers, source.body]);
  const maxBytes = Math.min(manifest.bounds.network?.maxBytes ?? DEFAULT_MAX_BYTES, MAX_MAX_BYTES);
  const deadlineMs = Math.max(1_000, (manifest.bounds.timeoutMs ?? 30_000) - DEADLINE_MARGIN_MS);
  return {
    endpoints: [endpoint],
    ...(secrets.length > 0 ? { secrets } : {}),
    execute: async (input, context) => {
      const url = parseFetchUrl(requestUrl(source.url, input));
      const given = new Map((context.secrets ?? []).map((secret) => [secret.name, secret.value]));
      const headers = Object.fromEntries(Object.entries(source.headers).map(([name, template]) => [name, headerValue(name, template, input, given)]));
      const body = requestBody(source.body, input, given);
      if (body?.json && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      const result = await fetchWithin(url, source.method, maxBytes, deadlineMs, { headers, ...(body ? { body: body.bytes } : {}) });
      if (result.location !== undefined) {
        throw new GateError('ERUNTIME', `${manifest.name}: ${url.origin} redirected to ${result.location}, another host or port, which an HTTP tool does not follow`);
      }
      if (result.status >= 400) {
        throw new GateError('ERUNTIME', `${manifest.name}: ${url.origin} answered ${result.status}: ${result.content.slice(0, 500)}`, { status: result.status });
      }
      if (result.truncated) throw new GateError('EQUOTA', `${manifest.name}: the response passed ${maxBytes} bytes (the tool's network.maxBytes) and was cut`);
      // A HEAD has no body to read: its answer is its status.
      if (source.method === 'HEAD') return { status: result.status };
      if (source.response === 'text') return { status: result.status, text: result.content };
      try {
        return JSON.parse(result.content) as unknown;
      } catch (error) {
        throw new GateError('ERUNTIME', `${manifest.name} declares a JSON response, but ${url.origin} sent no JSON (${(error as Error).message}): ${JSON.stringify(result.content.slice(0, 200))}`);
      }
    },
  };
};

/** The origin the URL template reaches; a placeholder before its path could move the request elsewhere, so it is refused. */
function checkEndpoint(template: string, manifestPath: string): string {
  const authorityEnd = template.search(/(?<=:\/\/[^/?#]*)[/?#]|$/);
  if (templateFields(template.slice(0, authorityEnd)).length > 0) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.url puts {{…}} in its scheme, host or port; write them out, and use fields only in the path and query`);
  }
  if (placeholdersIn(template).length > 0) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.url holds a $ENV secret; a secret goes in a header (e.g. "Authorization": "Bearer $ENV.API_KEY"), never in a URL the logs keep`);
  }
  let url: URL;
  try {
    url = parseFetchUrl(fillTemplate(template, {}));
  } catch (error) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.url: ${(error as Error).message}`);
  }
  return `${url.origin}/`;
}

/** A GET or HEAD reads the network, anything else writes to it: the manifest must say so, and ask for that grant. */
function checkDeclarations(manifest: ManifestFile, source: HttpSource, manifestPath: string): void {
  const reads = source.method === 'GET' || source.method === 'HEAD';
  const effect = reads ? 'NetRead' : 'NetWrite';
  const capability = reads ? 'net:read' : 'net:write';
  if (!manifest.sideEffects.includes(effect)) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: a ${source.method} request ${reads ? 'reads' : 'writes to'} the network: add "${effect}" to sideEffects`);
  }
  if (!manifest.capabilities.includes(capability)) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: add "${capability}" to capabilities; the gate then needs --grant ${capability}:<host> for the endpoint`);
  }
}

function templatesOf(source: HttpSource): Array<[string, string]> {
  const found: Array<[string, string]> = [[source.url, 'source.url']];
  for (const [name, value] of Object.entries(source.headers)) found.push([value, `source.headers.${name}`]);
  const walk = (value: unknown, where: string): void => {
    if (typeof value === 'string') found.push([value, where]);
    else if (value && typeof value === 'object') for (const [key, member] of Object.entries(value)) walk(member, `${where}.${key}`);
  };
  walk(source.body, 'source.body');
  return found;
}

/**
 * The URL with each field URL-encoded as one component: `/`, `?`, `#`, `@` and `%` in a value stay
 * data. A path that comes out with a `.` or `..` segment (which URL parsing would resolve) is
 * refused whatever made it: one field, or fields and the template's text together (`{{a}}.{{b}}`).
 */
export function requestUrl(template: string, input: unknown): string {
  const filled = fillTemplate(template, input, encodeURIComponent);
  const authorityEnd = filled.search(/(?<=:\/\/[^/?#]*)[/?#]|$/);
  const path = filled.slice(authorityEnd).split(/[?#]/, 1)[0]!;
  const dotSegment = path.split('/').find((segment) => /^(\.|%2e){1,2}$/i.test(segment));
  if (dotSegment !== undefined) {
    throw new GateError('EVALIDATION', `the URL's path would hold the segment "${dotSegment}", which would climb the endpoint's path; send fields that do not make a "." or ".." segment`);
  }
  return filled;
}

function headerValue(name: string, template: string, input: unknown, secrets: ReadonlyMap<string, string>): string {
  const value = fillTemplate(template, input, undefined, secrets);
  if (/[\r\n\0]/.test(value)) throw new GateError('EVALIDATION', `the ${name} header would hold a line break or NUL, which could start another header`);
  return value;
}

/** The body as bytes: a JSON template keeps each field's type where a leaf is a placeholder alone, and escapes it elsewhere. */
function requestBody(body: HttpSource['body'], input: unknown, secrets: ReadonlyMap<string, string>): { bytes: Buffer; json: boolean } | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return { bytes: Buffer.from(fillTemplate(body, input, undefined, secrets)), json: false };
  const fields = (input ?? {}) as Record<string, unknown>;
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (isWholePlaceholder(value)) {
        const field = templateFields(value)[0]!;
        return Object.hasOwn(fields, field) ? fields[field] : null;
      }
      return fillTemplate(value, input, undefined, secrets);
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, fill(member)]));
    return value;
  };
  return { bytes: Buffer.from(JSON.stringify(fill(body))), json: true };
}
