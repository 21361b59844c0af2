import { UPSTREAM_SEPARATOR, type DefinitionFinding, type UpstreamToolDefinition } from '../../shared/upstream';
import { definitionStrings } from './definitionStrings';
import { ADDRESSED_TO_MODEL, ASKS_FOR_SECRETS, type PhrasePattern } from './poisoningPhrases';
import { hiddenCharacters, normalizedForMatching, visibleText, type NormalizedText } from './hiddenText';

/**
 * Tool poisoning checks: a server's tool definitions are text the model reads as trusted, so a
 * server can hide orders there (Invariant Labs, "MCP Security Notification: Tool Poisoning
 * Attacks", 2025; the checks of their mcp-scan). Every string of a definition is read, its name,
 * title, description, annotations and every string and property name inside its schemas
 * (CyberArk's "Poison everywhere": any field reaches the model). Findings are shown to the person
 * at review; they decide nothing by themselves.
 */

/** Past this many characters a text is more than a person reads at review. */
export const MAX_DESCRIPTION_CHARS = 4096;

/** Characters of the original text shown either side of what was found. */
const EXCERPT_CONTEXT = 60;
/** The longest excerpt a finding carries. */
const EXCERPT_MAX = 200;

/**
 * What in these definitions of `server`'s tools may be aimed at the model rather than the person.
 * `otherTools` are the other names agents see (other servers' `server__tool`, the gate's own tools):
 * a definition that names one of them may be steering how that tool is used (shadowing).
 */
export function definitionFindings(server: string, definitions: UpstreamToolDefinition[], otherTools: readonly string[]): DefinitionFinding[] {
  const ownNames = new Set(definitions.flatMap((definition) => [definition.name, `${server}${UPSTREAM_SEPARATOR}${definition.name}`].map((name) => name.toLowerCase())));
  const shadowed = shadowNeedles(otherTools, ownNames);
  const findings: DefinitionFinding[] = [];
  for (const definition of definitions) {
    for (const { field, text } of definitionStrings(definition)) {
      const found = (kind: DefinitionFinding['kind'], excerpt: string, message: string) => findings.push({ tool: definition.name, kind, field, excerpt, message });
      const hidden = hiddenCharacters(text);
      if (hidden) found('hidden-characters', excerptAround(text, hidden.first, hidden.first + 1), hidden.message);
      if (text.length > MAX_DESCRIPTION_CHARS) {
        found('oversized', excerptAround(text, 0, 0), `is ${text.length} characters long, over ${MAX_DESCRIPTION_CHARS}: text past what a person reads at review can hide instructions`);
      }
      const normalized = normalizedForMatching(text);
      const ordering = firstMatch(normalized, ADDRESSED_TO_MODEL);
      if (ordering) {
        found('addressed-to-model', excerptAround(text, ordering.start, ordering.end), `speaks to the model instead of describing the tool (${ordering.label}): orders hidden in a definition can turn the model against the person`);
      }
      const asking = firstMatch(normalized, ASKS_FOR_SECRETS);
      if (asking) {
        found('asks-for-secrets', excerptAround(text, asking.start, asking.end), `asks for ${asking.label}: no tool needs the person's keys or configuration, and the model could be made to hand them to this server`);
      }
      const mentions = shadowed.flatMap((needle) => matchIn(normalized, needle.pattern).map((at) => ({ ...at, tool: needle.tool })));
      if (mentions.length > 0) {
        const names = [...new Set(mentions.map((mention) => mention.tool))].join(', ');
        const first = mentions.reduce((earliest, mention) => (mention.start < earliest.start ? mention : earliest));
        found('shadowing', excerptAround(text, first.start, first.end), `names ${visibleText(names)}, a tool of another server or of the gate: a definition that tells the model how to use other tools can change what they do (shadowing)`);
      }
    }
  }
  return findings;
}

/** A name to look for in definitions, as a whole word of normalized text, and the tool it stands for. */
interface ShadowNeedle {
  pattern: RegExp;
  tool: string;
}

/**
 * The names that count as mentions of other tools: each full name, and the tool part of a
 * `server__tool` name, when distinctive (it holds an underscore or is at least 8 characters: `echo`
 * or `hash` are words, `send_email` is a name). A name the server itself defines is its own tool's.
 */
function shadowNeedles(otherTools: readonly string[], ownNames: ReadonlySet<string>): ShadowNeedle[] {
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
function excerptAround(text: string, start: number, end: number): string {
  const from = surrogateSafe(text, Math.max(0, start - EXCERPT_CONTEXT));
  const to = surrogateSafe(text, Math.min(text.length, end + EXCERPT_CONTEXT));
  const excerpt = `${from > 0 ? '…' : ''}${visibleText(text.slice(from, to))}${to < text.length ? '…' : ''}`;
  return excerpt.length > EXCERPT_MAX ? `${excerpt.slice(0, EXCERPT_MAX - 1)}…` : excerpt;
}

/** An index moved off the middle of a surrogate pair, so a slice never cuts a character in two. */
function surrogateSafe(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index > 0 ? index - 1 : index;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
