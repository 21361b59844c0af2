import { canonicalize } from '../../shared/canonicalJson';
import { terminalText } from '../../shared/inertText';
import { UPSTREAM_SEPARATOR, type DefinitionFinding, type ToolClass, type UpstreamToolDefinition } from '../../shared/upstream';
import { unifiedDiff } from '../tools/unifiedDiff';
import { visibleText } from './hiddenText';
import { suggestedClass } from './suggestedClass';
import type { PinState } from './types';

/** One tool as `toolgate servers review` shows it. */
export interface ReviewEntry {
  definition: UpstreamToolDefinition;
  pin: PinState;
  findings: DefinitionFinding[];
}

/**
 * The text `toolgate servers review NAME` prints before it asks: per tool its name, where it stands,
 * title, description, arguments, the class it would be trusted as, the findings, and for a changed
 * tool the trusted and current definitions as a unified diff. Everything in it came from the server,
 * so the whole text is made terminal-safe: control, bidi and hidden characters become visible escapes.
 */
export function reviewReport(server: string, entries: ReviewEntry[]): string {
  const sections = entries.map((entry) => toolSection(server, entry));
  const header = `${server}: ${entries.length} tool${entries.length === 1 ? '' : 's'}`;
  return terminalText(visibleText([header, ...sections].join('\n\n'))) + '\n';
}

function toolSection(server: string, { definition, pin, findings }: ReviewEntry): string {
  const lines = [`${server}${UPSTREAM_SEPARATOR}${oneLine(definition.name)}  [${standing(pin)}]`];
  if (definition.title !== undefined) lines.push(`  Title: ${oneLine(definition.title)}`);
  lines.push('  Description:', ...indented(definition.description ?? '(none)', '    '));
  const args = argumentLines(definition.inputSchema);
  lines.push(args.length > 0 ? '  Arguments:' : '  Arguments: none', ...args);
  if (pin.state === 'trusted') lines.push(`  Trusted as: ${describeClass(pin.review.class)}`);
  else lines.push(`  Suggested class (from its annotations, which are only hints): ${describeClass(pin.state === 'changed' ? suggestedClass(pin.current) : pin.suggested)}`);
  if (pin.state === 'changed') lines.push(`  Was trusted as: ${describeClass(pin.review.class)}`);
  if (findings.length > 0) {
    lines.push(`  Findings (${findings.length}):`);
    for (const finding of findings) lines.push(`    ! ${finding.kind} in ${oneLine(finding.field)}: ${oneLine(finding.excerpt)}`, ...indented(finding.message, '      '));
  }
  if (pin.state === 'changed') {
    lines.push(`  Changed since you trusted it on ${oneLine(pin.review.reviewedAt)} (- trusted, + now):`);
    lines.push(...indented(unifiedDiff(`${server}${UPSTREAM_SEPARATOR}${oneLine(definition.name)}`, prettyCanonical(pin.review.definition), prettyCanonical(pin.current)).trimEnd(), '    '));
  }
  return lines.join('\n');
}

function standing(pin: PinState): string {
  if (pin.state === 'trusted') return 'trusted';
  if (pin.state === 'changed') return 'CHANGED since reviewed: disabled until you review it again';
  return 'not reviewed';
}

function describeClass(toolClass: ToolClass): string {
  return `${toolClass.tier}, ${toolClass.sideEffects.length > 0 ? toolClass.sideEffects.join(', ') : 'no side effects'}`;
}

/** Each line of a text behind a prefix, so a line the server wrote cannot pass for one of the report's own. */
function indented(text: string, prefix: string): string[] {
  return text.split(/\r?\n/).map((line) => `${prefix}${line}`);
}

/** A text the server wrote, shown on the one line the report gives it: its line breaks as `\n`. */
function oneLine(text: string): string {
  return text.replace(/\n/g, '\\n');
}

/** The arguments a tool's inputSchema declares: name, type, whether required, description. */
function argumentLines(inputSchema: Record<string, unknown>): string[] {
  const properties = inputSchema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((name): name is string => typeof name === 'string') : []);
  return Object.entries(properties).flatMap(([name, schema]) => {
    const property = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {};
    const head = `    ${oneLine(name)} (${schemaType(property)}${required.has(name) ? ', required' : ''})`;
    return typeof property.description === 'string' ? [`${head}:`, ...indented(property.description, '        ')] : [head];
  });
}

/** A property's JSON Schema type in words: `string`, `array of string`, `string | null`, or `any`. */
function schemaType(property: Record<string, unknown>): string {
  const type = property.type;
  const named = typeof type === 'string' ? type : Array.isArray(type) ? type.filter((item) => typeof item === 'string').join(' | ') : '';
  if (named === 'array' && typeof property.items === 'object' && property.items !== null) return `array of ${schemaType(property.items as Record<string, unknown>)}`;
  if (named) return named;
  return Array.isArray(property.enum) ? `one of ${property.enum.map((value) => JSON.stringify(value)).join(', ')}` : 'any';
}

/** A definition as canonical JSON, one member a line, so the diff of two shows exactly what changed. */
function prettyCanonical(definition: UpstreamToolDefinition): string {
  return `${JSON.stringify(JSON.parse(canonicalize(definition)), null, 2)}\n`;
}
