import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { z } from 'zod';
import type { Preview } from '../../../shared/approval';
import { GateError } from '../../../shared/errors';
import { defineTool, type DefinedTool } from '../../registry/defineTool';
import { formatDestination, type SecretDestination } from '../../secrets/secretDestinations';
import { checkDestinations } from '../../secrets/secretBindings';
import type { SecretProvider } from '../../secrets/secretProvider';
import { resultFindings } from '../../upstream/resultFindings';
import { shadowNeedles } from '../../upstream/textScan';
import { readDecoded } from '../fetchBody';
import { servedByGate, type GateServedBehaviour } from '../gateServed';
import { FetchDeadline, guardedLookup } from '../httpFetch';
import { canonicalHost, effectivePort, grantTarget, needsExactGrant } from '../netAccess';
import { normalizeAnswer, searchProvider, type ProviderRequest } from './searchProviders';
import { searchEndpoint, type WebSearchSettings } from './searchSettings';

const KIB = 1024;
/** Results one call returns at most. */
const MAX_COUNT = 20;
/** Bytes of results (as JSON) one call returns at most; results past it are left out. */
export const MAX_RESULT_BYTES = 64 * KIB;
/** Bytes of a provider's answer read (decompressed): a longer answer is refused, never cut into broken JSON. */
const MAX_ANSWER_BYTES = 2 * KIB * KIB;
/** One deadline over the whole request, below the tool's timeout so the call ends in its own error. */
const SEARCH_DEADLINE_MS = 15_000;

/** What web_search is served with. */
export interface WebSearchDeps {
  settings: WebSearchSettings;
  /** Where the provider's key is looked up (and held to its `--for`). */
  secrets: SecretProvider;
  /** The gate's other tools, whose names in a result may be steering how they are used. */
  otherTools: () => string[];
}

/**
 * web_search, defined for the provider the settings name. The request is the gate's own: the
 * provider's address and key come from the person's settings and secrets, the agent gives only the
 * words and a count, so its capability is `net:read` of the provider's host (granted like
 * http_fetch's, `--grant net:read:HOST`). ELEVATED, as http_fetch: the query leaves the machine and
 * can carry anything the agent read. It runs in the gate (gateServed.ts), since its key never goes
 * to a tool process; the answer is parsed as JSON data, bounded as it streams, and scanned like an
 * upstream server's result.
 */
export function webSearchTool(deps: WebSearchDeps): { tool: DefinedTool; behaviour: GateServedBehaviour } {
  const { settings } = deps;
  const endpoint = searchEndpoint(settings);
  const provider = searchProvider(settings.provider);
  const tool = defineTool({
    name: 'web_search',
    version: '1.0.0',
    description:
      `Searches the web through ${settings.provider} (${endpoint.host}) and returns the results as title, URL and snippet, best first ` +
      `(at most ${MAX_COUNT}, at most ${MAX_RESULT_BYTES / KIB} KiB). Fetch a page it finds with http_fetch. A person approves each search.`,
    tier: 'ELEVATED',
    sideEffects: ['NetRead'],
    determinism: 'NonDeterministic',
    capabilities: [`net:read:${grantTarget(endpoint)}`],
    secrets: 'refuse',
    bounds: { timeoutMs: 30_000, maxOutputBytes: 2 * MAX_RESULT_BYTES, network: { maxRequests: 1, maxBytes: MAX_ANSWER_BYTES } },
    input: z
      .object({
        query: z.string().min(1).max(400).describe('What to search for'),
        count: z.number().int().min(1).max(MAX_COUNT).default(5).describe(`Results wanted (default 5, at most ${MAX_COUNT})`),
      })
      .strict(),
    output: z.object({
      provider: z.string().describe('The service that answered'),
      results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })).describe('Best first'),
      dropped: z.number().int().describe('Results left out: past the count or the size cap, or without an http(s) URL'),
      truncated: z.boolean().describe(`Whether results were left out to stay within ${MAX_RESULT_BYTES / KIB} KiB`),
    }),
    execute: servedByGate,
  });
  const shown = (input: { query: string; count: number }): ProviderRequest => provider.request(endpoint.href, input.query, input.count, undefined);
  const behaviour: GateServedBehaviour = {
    preview: (input: { query: string; count: number }): Preview => {
      const request = shown(input);
      return { kind: 'request', method: request.method, url: request.url.href, host: request.url.hostname };
    },
    run: async (input: { query: string; count: number }, context) => {
      const key = await providerKey(deps, endpoint);
      const answer = await ask(provider.request(endpoint.href, input.query, input.count, key), context.signal);
      return { provider: settings.provider, ...normalizeAnswer(settings.provider, answer, input.count, MAX_RESULT_BYTES) };
    },
    resultFindings: (data) => resultFindings(data, shadowNeedles(deps.otherTools(), new Set(['web_search']))),
  };
  return { tool, behaviour };
}

/**
 * The provider's key, from the secret the settings name. It must be stored for this very host
 * (`--for web_search:HOST`): a key stored without a destination, or for another one, is refused,
 * so a settings file pointed elsewhere cannot carry the key there.
 */
async function providerKey({ settings, secrets }: WebSearchDeps, endpoint: URL): Promise<string | undefined> {
  const name = settings.keySecret;
  if (name === undefined) return undefined;
  const target: SecretDestination = { kind: 'host', tool: 'web_search', host: canonicalHost(endpoint.hostname), port: effectivePort(endpoint) };
  const destination = formatDestination({ kind: 'host', tool: 'web_search', host: target.host });
  const value = await secrets.get(name);
  if (value === undefined) {
    throw new GateError('EVALIDATION', `webSearch.keySecret names ${name}, which is not stored: store the ${settings.provider} key with \`toolgate secret set ${name} --for ${destination}\``);
  }
  if ((await secrets.destinations?.(name)) === undefined) {
    throw new GateError('EPERMISSION', `${name} was stored without --for, so nothing holds it to the search provider's host; store it again with \`toolgate secret set ${name} --for ${destination}\``, { secret: name });
  }
  const refusal = await checkDestinations([name], [target], secrets);
  if (refusal) throw refusal;
  return value;
}

/** Makes the request and reads its JSON answer within the deadline and the byte cap; a redirect is not followed. */
async function ask(request: ProviderRequest, signal: AbortSignal | undefined): Promise<unknown> {
  const deadline = new FetchDeadline(SEARCH_DEADLINE_MS);
  try {
    const response = await send(request, AbortSignal.any([deadline.signal, ...(signal ? [signal] : [])]), deadline);
    const status = response.statusCode ?? 0;
    const { body, truncated } = await readDecoded(response, MAX_ANSWER_BYTES, MAX_ANSWER_BYTES, deadline).finally(() => response.destroy());
    const where = request.url.host;
    if (status >= 300 && status < 400) {
      throw new GateError('ERUNTIME', `${where} answered ${status}, a redirect${response.headers.location ? ` to ${response.headers.location}` : ''}; web_search follows none: set webSearch.url to the address it points to`);
    }
    if (status < 200 || status >= 300) {
      throw new GateError('ERUNTIME', `${where} answered ${status}: ${body.toString('utf8', 0, 300).replace(/\s+/g, ' ')}`, { status });
    }
    if (truncated) throw new GateError('EQUOTA', `${where} answered more than ${MAX_ANSWER_BYTES / (KIB * KIB)} MiB; ask for fewer results`);
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new GateError('ERUNTIME', `${where} did not answer JSON; check webSearch.url points at the provider's JSON API`);
    }
  } finally {
    deadline.close();
  }
}

function send(request: ProviderRequest, signal: AbortSignal, deadline: FetchDeadline): Promise<IncomingMessage> {
  const { url } = request;
  const open = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = open(url, {
      method: request.method,
      // The person named the host; a name must still resolve to public addresses (as http_fetch's), a private one is written as its address.
      lookup: guardedLookup(needsExactGrant(url.hostname)),
      signal,
      headers: { 'user-agent': 'toolgate-web-search/1.0', 'accept-encoding': 'gzip, deflate, br', ...request.headers },
    });
    outgoing.on('response', resolve);
    outgoing.on('error', (error) => {
      if (error instanceof GateError) return reject(error);
      if (deadline.expired) return reject(new GateError('ETIMEOUT', `${url.host} did not answer within ${deadline.seconds} s`));
      reject(new GateError('ERUNTIME', `asking ${url.host} failed: ${error.message}`));
    });
    outgoing.end(request.body);
  });
}
