import { UPSTREAM_SEPARATOR, type TextFindingKind } from '../../shared/upstream';
import { homoglyphWords } from './confusables';
import { encodedRuns } from './encodedText';
import { hiddenCharacters, normalizedForMatching, visibleText, type NormalizedText } from './hiddenText';
import { ADDRESSED_TO_MODEL, ASKS_FOR_SECRETS, type PhrasePattern } from './poisoningPhrases';

/**
 * The checks every text an upstream server writes goes through, a definition's or a result's: what
 * in it may be aimed at the model rather than the person. Each check reads the text as the model
 * would: hidden characters out, look-alike letters read as the letters they mimic, encoded runs
 * decoded.
 */

/** Characters of the original text shown either side of what was found. */
const EXCERPT_CONTEXT = 60;
/** The longest excerpt a finding carries. */
const EXCERPT_MAX = 200;
/** Characters of a decoded text a message quotes. */
const DECODED_SHOWN = 120;
/** How deep encoded text inside decoded text is followed (base64 of base64). */
const MAX_DECODE_DEPTH = 2;
/** Characters of an unreadable encoded run past which a definition holding it is flagged (a SHA-256 in hex is 64). */
const LONG_BLOB = 100;

/** A name to look for, as a whole word of normalized text, and the tool it stands for. */
export interface ShadowNeedle {
  pattern: RegExp;
  tool: string;
}

/** How a text is scanned. */
export interface ScanOptions {
  /** Other tools' names: a text naming one may be steering how that tool is used. */
  shadowed: readonly ShadowNeedle[];
  /** The script most of the text around is in: there, a whole word of look-alikes from another script is a disguise. */
  surroundingScript: string | undefined;
  /** Whether requests for secret files and keys count (in a definition); a result naming ~/.ssh is ordinary data. */
  secrets: boolean;
  /** Whether an encoded run counts by itself (in a definition); in a result only what it decodes to counts. */
  encodedRuns: boolean;
}

/** One thing found in a text. */
export interface TextHit {
  kind: TextFindingKind;
  excerpt: string;
  message: string;
}

/** What in one text may be aimed at the model: hidden characters, look-alikes, orders, secrets asked for, other tools named, encoded text. */
export function scanText(text: string, options: ScanOptions, depth = 0): TextHit[] {
  const hits: TextHit[] = [];
  const found = (kind: TextFindingKind, start: number, end: number, message: string) => hits.push({ kind, excerpt: excerptAround(text, start, end), message });
  const hidden = hiddenCharacters(text);
  if (hidden) found('hidden-characters', hidden.first, hidden.first + 1, hidden.message);
  const disguised = homoglyphWords(text, options.surroundingScript);
  if (disguised.length > 0) {
    const first = disguised[0]!;
    const words = disguised.length === 1 ? 'a word' : `${disguised.length} words`;
    found(
      'homoglyphs',
      first.start,
      first.end,
      `spells ${words} with look-alike letters of another script ("${visibleText(first.word)}" is ${first.scripts.join(' and ')}, read as "${visibleText(first.readsAs)}"): a person and a model read the word, but no check written for its letters sees it`,
    );
  }
  const normalized = normalizedForMatching(text);
  const ordering = firstMatch(normalized, ADDRESSED_TO_MODEL);
  if (ordering) {
    found('addressed-to-model', ordering.start, ordering.end, `speaks to the model instead of the person (${ordering.label}): orders hidden in what a server writes can turn the model against the person`);
  }
  const asking = options.secrets ? firstMatch(normalized, ASKS_FOR_SECRETS) : undefined;
  if (asking) {
    found('asks-for-secrets', asking.start, asking.end, `asks for ${asking.label}: no tool needs the person's keys or configuration, and the model could be made to hand them to this server`);
  }
  const mentions = namesAny(normalized.text, options.shadowed)
    ? options.shadowed.flatMap((needle) => matchIn(normalized, needle.pattern).map((at) => ({ ...at, tool: needle.tool })))
    : [];
  if (mentions.length > 0) {
    const names = [...new Set(mentions.map((mention) => mention.tool))].join(', ');
    const first = mentions.reduce((earliest, mention) => (mention.start < earliest.start ? mention : earliest));
    found('shadowing', first.start, first.end, `names ${visibleText(names)}, a tool of another server or of the gate: text that tells the model how to use other tools can change what they do (shadowing)`);
  }
  for (const run of encodedRuns(text)) {
    const length = run.end - run.start;
    if (run.decoded === undefined) {
      if (options.encodedRuns && length >= LONG_BLOB) found('encoded-text', run.start, run.end, `holds ${length} characters of ${run.encoding} that a person cannot read and a model can decode`);
      continue;
    }
    if (options.encodedRuns) {
      found('encoded-text', run.start, run.end, `holds ${length} characters of ${run.encoding} that decode to text a person does not see: "${shortened(run.decoded)}"`);
    }
    if (depth >= MAX_DECODE_DEPTH) continue;
    for (const inner of scanText(run.decoded, options, depth + 1)) {
      hits.push({ kind: inner.kind, excerpt: inner.excerpt, message: `once decoded from ${run.encoding}, ${inner.message}` });
    }
  }
  return hits;
}

/**
 * The names that count as mentions of other tools: each full name, and the tool part of a
 * `server__tool` name, when distinctive (it holds an underscore or is at least 8 characters: `echo`
 * or `hash` are words, `send_email` is a name). A name in `ownNames` is the writer's own tool's.
 */
export function shadowNeedles(otherTools: readonly string[], ownNames: ReadonlySet<string>): ShadowNeedle[] {
  const needles: ShadowNeedle[] = [];
  for (const tool of otherTools) {
    const separator = tool.indexOf(UPSTREAM_SEPARATOR);
    const candidates = separator > 0 ? [tool, tool.slice(separator + UPSTREAM_SEPARATOR.length)] : [tool];
    for (const candidate of candidates) {
      const name = candidate.toLowerCase();
      const distinctive = name.includes('_') || name.length >= 8;
      if (!distinctive || ownNames.has(name)) continue;
      needles.push({ pattern: new RegExp(`(?<![\\p{L}\\p{N}_-])${escapeRegExp(name)}(?![\\p{L}\\p{N}_-])`, 'gu'), tool });
    }
  }
  return needles;
}

/** Each list of needles as one pattern that matches wherever any of them does. */
const anyOf = new WeakMap<readonly ShadowNeedle[], RegExp>();

/**
 * Whether the text names any of the tools: most texts name none, and one pass of all the names
 * together costs what one name's does, where reading the text once per name cost most of a result's checks.
 */
function namesAny(text: string, needles: readonly ShadowNeedle[]): boolean {
  if (needles.length === 0) return false;
  let any = anyOf.get(needles);
  if (!any) {
    any = new RegExp(needles.map((needle) => `(?:${needle.pattern.source})`).join('|'), 'u');
    anyOf.set(needles, any);
  }
  return any.test(text);
}

/** Where a pattern matches in normalized text, as ranges of the original text. */
function matchIn(normalized: NormalizedText, pattern: RegExp): { start: number; end: number }[] {
  return [...normalized.text.matchAll(pattern)].map((match) => normalized.originalRange(match.index, match.index + match[0].length));
}

/** The first phrase of a list found in the text, with its label and range in the original text. */
function firstMatch(normalized: NormalizedText, phrases: readonly PhrasePattern[]): { label: string; start: number; end: number } | undefined {
  for (const { pattern, label } of phrases) {
    const match = pattern.exec(normalized.text);
    if (match) return { label, ...normalized.originalRange(match.index, match.index + match[0].length) };
  }
  return undefined;
}

/** The original text around [start, end), hidden characters shown as \u{…}, at most EXCERPT_MAX characters. */
export function excerptAround(text: string, start: number, end: number): string {
  const from = surrogateSafe(text, Math.max(0, start - EXCERPT_CONTEXT));
  const to = surrogateSafe(text, Math.min(text.length, end + EXCERPT_CONTEXT));
  const excerpt = `${from > 0 ? '…' : ''}${visibleText(text.slice(from, to))}${to < text.length ? '…' : ''}`;
  return excerpt.length > EXCERPT_MAX ? `${excerpt.slice(0, EXCERPT_MAX - 1)}…` : excerpt;
}

/** A decoded text as a message quotes it: its start, hidden characters shown. */
function shortened(text: string): string {
  return text.length > DECODED_SHOWN ? `${visibleText(text.slice(0, surrogateSafe(text, DECODED_SHOWN)))}…` : visibleText(text);
}

/** An index moved off the middle of a surrogate pair, so a slice never cuts a character in two. */
function surrogateSafe(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index > 0 ? index - 1 : index;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
