/**
 * Reading the project's Markdown as the docs tests need it: the README and docs/*.md, their code
 * (fenced blocks and inline spans), their links and the anchors GitHub gives their headings.
 * Written here rather than with a Markdown library: the project has none as a dependency, and the
 * docs use only fences, code spans, links and ATX headings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../integration/cliProcesses';

/** One Markdown file of the docs, by its path from the repository root. */
export interface DocFile {
  path: string;
  text: string;
}

/** README.md and every docs/*.md. */
export function docFiles(): DocFile[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

/** A file's lines split into fenced code (with the fence's line) and prose. */
function blocks(text: string): { code: boolean; line: number; text: string }[] {
  const out: { code: boolean; line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const opener = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      return;
    }
    out.push({ code: fence !== undefined, line: index + 1, text: line });
  });
  return out;
}

/** A piece of code in a doc: a fenced block's line (continuations joined) or an inline code span. */
export interface CodeText {
  line: number;
  text: string;
  /** An inline code span, not a line of a fenced block. */
  inline: boolean;
}

/** Prose split into paragraphs (blank lines and fences end one), each with its first line. */
function paragraphs(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | undefined;
  for (const block of blocks(text)) {
    if (block.code || block.text.trim() === '') {
      current = undefined;
      continue;
    }
    if (current) current.text += `\n${block.text}`;
    else out.push((current = { line: block.line, text: block.text }));
  }
  return out;
}

/** The line of an offset in a paragraph. */
function lineAt(paragraph: { line: number; text: string }, offset: number): number {
  return paragraph.line + (paragraph.text.slice(0, offset).match(/\n/g)?.length ?? 0);
}

/** Every line of fenced code (a line ending in `\` joined with the next) and every inline code span, which may wrap. */
export function codeTexts(text: string): CodeText[] {
  const out: CodeText[] = [];
  let pending: CodeText | undefined;
  for (const block of blocks(text)) {
    if (!block.code) continue;
    const joined: CodeText = pending ? { ...pending, text: `${pending.text} ${block.text.trim()}` } : { line: block.line, text: block.text, inline: false };
    if (/\\\s*$/.test(joined.text)) pending = { ...joined, text: joined.text.replace(/\\\s*$/, '') };
    else {
      pending = undefined;
      out.push(joined);
    }
  }
  for (const paragraph of paragraphs(text)) {
    // Table cells escape `|` as `\|`, also inside code spans.
    for (const span of paragraph.text.matchAll(/(`+)([\s\S]+?)\1/g)) {
      out.push({ line: lineAt(paragraph, span.index), text: span[2]!.replace(/\\\|/g, '|').replace(/\s*\n\s*/g, ' ').trim(), inline: true });
    }
  }
  return out;
}

/** Every link and image target in a doc's prose (code spans left out), with its line. */
export function linksOf(text: string): { line: number; target: string }[] {
  return paragraphs(text).flatMap((paragraph) => {
    const prose = paragraph.text.replace(/(`+)[\s\S]+?\1/g, (span) => span.replace(/[^\n]/g, ' '));
    return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => ({ line: lineAt(paragraph, match.index), target: match[1]! }));
  });
}

/**
 * The anchors GitHub gives a doc's headings: the text lower-cased, punctuation dropped, spaces as
 * hyphens, and `-1`, `-2` after a repeated one (the rule of github-slugger).
 */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const block of blocks(text)) {
    const heading = !block.code && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(block.text)?.[1];
    if (!heading) continue;
    const base = heading
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
