import { z } from 'zod';
import { GateError } from '../../../shared/errors';
import { htmlContent } from '../htmlText';

/** The search services web_search can ask. */
export const SearchProviderNameSchema = z.enum(['searxng', 'brave', 'tavily']);
export type SearchProviderName = z.infer<typeof SearchProviderNameSchema>;

/** One result as web_search returns it, whichever service answered. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** The request to make to a provider: everything but the key is what the person's prompt shows. */
export interface ProviderRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** How to ask one service and read its answer. */
interface SearchProvider {
  /** Its public API's address, when it has one (a SearXNG instance is the person's own). */
  defaultUrl?: string;
  /** Whether it needs an API key. */
  needsKey: boolean;
  /** The request for a query, the key left out when not given (for the prompt's preview). */
  request(endpoint: string, query: string, count: number, key: string | undefined): ProviderRequest;
  /** Its answer's results, in its own order, as its JSON shape names them. */
  schema: z.ZodType<Array<{ title?: string | null; url?: string | null; snippet?: string | null }>>;
}

/** A result entry's text field: services send null or leave it out for a result without one. */
const text = z.string().nullish();

/** SearXNG's `format=json`: `{ results: [{ title, url, content }] }`. */
const searxngAnswer = z
  .object({ results: z.array(z.object({ title: text, url: text, content: text }).loose()) })
  .loose()
  .transform((answer) => answer.results.map((result) => ({ title: result.title, url: result.url, snippet: result.content })));

/** Brave's web search: `{ web: { results: [{ title, url, description }] } }` (no `web` when nothing was found). */
const braveAnswer = z
  .object({ web: z.object({ results: z.array(z.object({ title: text, url: text, description: text }).loose()) }).loose().optional() })
  .loose()
  .transform((answer) => (answer.web?.results ?? []).map((result) => ({ title: result.title, url: result.url, snippet: result.description })));

/** Tavily's search: `{ results: [{ title, url, content }] }`. */
const tavilyAnswer = searxngAnswer;

const PROVIDERS: Record<SearchProviderName, SearchProvider> = {
  searxng: {
    needsKey: false,
    request: (endpoint, query) => {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      return { method: 'GET', url, headers: { accept: 'application/json' } };
    },
    schema: searxngAnswer,
  },
  brave: {
    defaultUrl: 'https://api.search.brave.com/res/v1/web/search',
    needsKey: true,
    request: (endpoint, query, count, key) => {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      return { method: 'GET', url, headers: { accept: 'application/json', ...(key !== undefined ? { 'x-subscription-token': key } : {}) } };
    },
    schema: braveAnswer,
  },
  tavily: {
    defaultUrl: 'https://api.tavily.com/search',
    needsKey: true,
    request: (endpoint, query, count, key) => ({
      method: 'POST',
      url: new URL(endpoint),
      headers: { accept: 'application/json', 'content-type': 'application/json', ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query, max_results: count }),
    }),
    schema: tavilyAnswer,
  },
};

/** The provider of that name. */
export function searchProvider(name: SearchProviderName): SearchProvider {
  return PROVIDERS[name];
}

/** Characters of a result's title kept. */
const MAX_TITLE_CHARS = 300;
/** Characters of a result's snippet kept. */
const MAX_SNIPPET_CHARS = 1000;
/** Characters of a result's URL past which the result is dropped (a cut URL would lead elsewhere). */
const MAX_URL_CHARS = 2048;

/** What normalizing an answer kept, and what it left out. */
export interface NormalizedResults {
  results: SearchResult[];
  /** Results left out: beyond the count or the byte cap, or without an http(s) URL. */
  dropped: number;
  /** Whether the byte cap left results out. */
  truncated: boolean;
}

/**
 * A provider's answer as web_search's results: title, URL and snippet, HTML in them made text,
 * each cut to its length, at most `count` of them and at most `maxBytes` of them in all (as UTF-8
 * JSON). A result without an http(s) URL is dropped: the agent would be sent to a `javascript:` or
 * `file:` address. An answer not of the provider's shape is an error naming what was wrong.
 */
export function normalizeAnswer(provider: SearchProviderName, body: unknown, count: number, maxBytes: number): NormalizedResults {
  const parsed = PROVIDERS[provider].schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError('ERUNTIME', `the ${provider} answer is not a search result list (${issue.path.join('.') || 'answer'}: ${issue.message}); check webSearch.url in settings.json points at its JSON API`);
  }
  const results: SearchResult[] = [];
  let bytes = 2;
  let dropped = 0;
  let truncated = false;
  for (const entry of parsed.data) {
    const url = webUrl(entry.url);
    if (url === undefined || results.length >= count || truncated) {
      dropped++;
      continue;
    }
    const result = { title: plain(entry.title, MAX_TITLE_CHARS) || url, url, snippet: plain(entry.snippet, MAX_SNIPPET_CHARS) };
    const size = Buffer.byteLength(JSON.stringify(result)) + 1;
    if (bytes + size > maxBytes) {
      truncated = true;
      dropped++;
      continue;
    }
    bytes += size;
    results.push(result);
  }
  return { results, dropped, truncated };
}

function webUrl(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string' || raw.length > MAX_URL_CHARS || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/** A title or snippet as text: markup (Brave marks matches with <strong>) and entities made text, cut at `max` characters. */
function plain(raw: string | null | undefined, max: number): string {
  if (typeof raw !== 'string') return '';
  const cut = raw.slice(0, max * 4);
  const text = /[<&]/.test(cut) ? htmlContent(cut).content : cut;
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}
