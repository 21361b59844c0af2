/**
 * Reading docs/guards.md and the test files it names: the table's rows, and every it()/test() a
 * test file declares with its title and how it could be skipped. Test files are read with the
 * TypeScript compiler's parser (already a dependency), so titles are the strings vitest sees,
 * escapes and template parts included, and a skip on an enclosing describe is found too.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** One row of the guard table: the guard, and the tests named in each column as `file › title`. */
export interface GuardRow {
  line: number;
  guard: string;
  unit: NamedTest[];
  gate: NamedTest[];
}

/** A test as the table names it. */
export interface NamedTest {
  file: string;
  title: string;
}

/** A test a file declares: its title (a pattern when vitest fills it in), and the modifiers on it or around it. */
export interface DeclaredTest {
  title: string;
  /** Matches the titles vitest prints for it: it.each's %s/%j/$name and template literals' ${…} take any text. */
  matches: (title: string) => boolean;
  /** `skip`, `only`, `todo`, `skipIf`, `runIf`… on the test itself or on a describe around it. */
  modifiers: string[];
}

/** The code spans of a Markdown table cell, each trimmed as CommonMark does (one space each side). */
function codeSpans(cell: string): string[] {
  const spans: string[] = [];
  for (const match of cell.matchAll(/(`+)(.+?)\1(?!`)/g)) {
    const text = match[2]!;
    spans.push(text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '' ? text.slice(1, -1) : text);
  }
  return spans;
}

function namedTest(text: string): NamedTest {
  const at = text.indexOf(' › ');
  if (at < 0) throw new Error(`"${text}" is not "file › title"`);
  return { file: text.slice(0, at), title: text.slice(at + 3) };
}

/** The rows of the table in docs/guards.md (the one whose header starts with "Guard"). */
export function guardRows(markdown: string): GuardRow[] {
  const rows: GuardRow[] = [];
  let inTable = false;
  markdown.split('\n').forEach((line, index) => {
    if (/^\|\s*Guard\s*\|/.test(line)) {
      inTable = true;
      return;
    }
    if (!inTable || /^\|[-| ]+\|$/.test(line)) return;
    if (!line.startsWith('|')) {
      inTable = false;
      return;
    }
    const cells = line.split('|').slice(1, -1);
    if (cells.length !== 4) throw new Error(`docs/guards.md:${index + 1}: a row needs 4 cells (guard, claimed in, in process, through the real gate), not ${cells.length}`);
    rows.push({ line: index + 1, guard: cells[0]!.trim(), unit: codeSpans(cells[2]!).map(namedTest), gate: codeSpans(cells[3]!).map(namedTest) });
  });
  return rows;
}

const TEST_CALLS = new Set(['it', 'test']);
const SUITE_CALLS = new Set(['describe', 'suite']);

/** The base name and modifiers of a callee such as `it`, `it.skip`, `it.skipIf(x)`, `it.each([...])`. */
function calleeParts(callee: ts.Expression): { base: string; modifiers: string[] } | undefined {
  const modifiers: string[] = [];
  let node: ts.Expression = callee;
  for (;;) {
    if (ts.isCallExpression(node)) node = node.expression;
    else if (ts.isPropertyAccessExpression(node)) {
      modifiers.unshift(node.name.text);
      node = node.expression;
    } else break;
  }
  return ts.isIdentifier(node) ? { base: node.text, modifiers } : undefined;
}

/** A title argument as a pattern: literal text, with vitest's and template literals' placeholders taking any text. */
function titlePattern(argument: ts.Expression, each: boolean): DeclaredTest['matches'] | undefined {
  const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const placeholders = (text: string) => (each ? quote(text).replace(/%[sdifjoO#]|\\\$[\w.]+/g, '.+') : quote(text));
  let source: string;
  if (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)) source = placeholders(argument.text);
  else if (ts.isTemplateExpression(argument)) source = [argument.head.text, ...argument.templateSpans.map((span) => span.literal.text)].map(placeholders).join('.+');
  else return undefined;
  const pattern = new RegExp(`^${source}$`, 's');
  return (title) => pattern.test(title);
}

/** Every it()/test() of a test file, with the modifiers on it and on the describes around it. */
export function declaredTests(path: string): DeclaredTest[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const tests: DeclaredTest[] = [];
  const visit = (node: ts.Node, around: string[]): void => {
    if (ts.isCallExpression(node)) {
      const parts = calleeParts(node.expression);
      const [first] = node.arguments;
      if (parts && first && SUITE_CALLS.has(parts.base)) {
        for (const argument of node.arguments.slice(1)) visit(argument, [...around, ...parts.modifiers]);
        return;
      }
      if (parts && first && TEST_CALLS.has(parts.base)) {
        const matches = titlePattern(first, parts.modifiers.includes('each'));
        if (matches) tests.push({ title: first.getText(source), matches, modifiers: [...around, ...parts.modifiers] });
      }
    }
    ts.forEachChild(node, (child) => visit(child, around));
  };
  visit(source, []);
  return tests;
}
