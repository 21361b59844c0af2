import { getNodeValue, parseTree, printParseErrorCode, type FormattingOptions, type Node, type ParseError } from 'jsonc-parser';
import { GateError } from '../../shared/errors';
import { lineColumn } from '../settings/settings';

/**
 * Reading and editing the JSON files MCP servers are listed in (servers.json and the clients'
 * configs) as text: comments are allowed, and edits touch only the value they change.
 */

/** One property of a JSON object as written: its key and where its value is. */
export interface JsonProperty {
  key: string;
  /** The property node (key and value), for its place in the text. */
  node: Node;
  value: Node;
}

/**
 * The syntax tree of a JSON (with comments) text; undefined for an empty text. Text that is not
 * JSON throws a GateError naming `source`, the line, the column and what was found there.
 */
export function parseJsoncTree(text: string, source: string): Node | undefined {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  const [first] = errors;
  if (first) {
    throw new GateError('EVALIDATION', `${source} is not JSON: ${printParseErrorCode(first.error)} at ${lineColumn(text, first.offset)}. Fix it there (a missing comma or quote is the usual cause); nothing was read from it or written to it.`, {
      file: source,
    });
  }
  return tree;
}

/** The properties of an object node, in the order written (a key written twice appears twice). */
export function objectProperties(node: Node): JsonProperty[] {
  return (node.children ?? []).flatMap((property) => {
    const [key, value] = property.children ?? [];
    return key && value ? [{ key: String(key.value), node: property, value }] : [];
  });
}

/** Edits formatted as the text already is: its indent (spaces or a tab) and its line ends. */
export function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** A node's value as plain JSON data (jsonc-parser builds objects without a prototype, which compare unequal to plain ones). */
export function plainValue(node: Node): unknown {
  return JSON.parse(JSON.stringify(getNodeValue(node))) as unknown;
}
