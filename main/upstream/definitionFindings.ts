import { UPSTREAM_SEPARATOR, type DefinitionFinding, type UpstreamToolDefinition } from '../../shared/upstream';
import { definitionStrings, type DefinitionString } from './definitionStrings';
import { AlphabetBaseline, dominantScript, otherScriptPassage, scriptCounts } from './otherLanguage';
import { excerptAround, scanText, shadowNeedles } from './textScan';

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

/**
 * What in these definitions of `server`'s tools may be aimed at the model rather than the person.
 * `otherTools` are the other names agents see (other servers' `server__tool`, the gate's own tools):
 * a definition that names one of them may be steering how that tool is used (shadowing).
 */
export function definitionFindings(server: string, definitions: UpstreamToolDefinition[], otherTools: readonly string[]): DefinitionFinding[] {
  const ownNames = new Set(definitions.flatMap((definition) => [definition.name, `${server}${UPSTREAM_SEPARATOR}${definition.name}`].map((name) => name.toLowerCase())));
  const shadowed = shadowNeedles(otherTools, ownNames);
  const strings = definitions.map((definition) => ({ definition, strings: [...definitionStrings(definition)] }));
  // What the server writes in: its prose, not its names, keys and schema keywords, which are ASCII identifiers anyway.
  const prose = strings.flatMap((entry) => entry.strings.filter(isProse).map((string) => string.text));
  const dominant = dominantScript(scriptCounts(prose));
  const alphabet = new AlphabetBaseline(prose);
  const whose = `${server}'s definitions`;
  const findings: DefinitionFinding[] = [];
  for (const { definition, strings: fields } of strings) {
    for (const string of fields) {
      const { field, text } = string;
      const found = (kind: DefinitionFinding['kind'], excerpt: string, message: string) => findings.push({ tool: definition.name, kind, field, excerpt, message });
      for (const hit of scanText(text, { shadowed, surroundingScript: dominant, secrets: true, encodedRuns: true })) found(hit.kind, hit.excerpt, hit.message);
      if (text.length > MAX_DESCRIPTION_CHARS) {
        found('oversized', excerptAround(text, 0, 0), `is ${text.length} characters long, over ${MAX_DESCRIPTION_CHARS}: text past what a person reads at review can hide instructions`);
      }
      if (!isProse(string)) continue;
      const passage = otherScriptPassage(text, dominant, whose) ?? alphabet.sentenceOutside(text, whose);
      if (passage) found('other-language', excerptAround(text, passage.start, passage.end), passage.message);
    }
  }
  return findings;
}

/** Whether a string is text written for a reader (a description or a title anywhere), not a name, a key or a schema keyword's value. */
function isProse({ field, key }: DefinitionString): boolean {
  return !key && /(?:^|\.)(?:description|title)$/.test(field);
}
