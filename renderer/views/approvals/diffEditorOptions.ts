import type * as Monaco from 'monaco-editor/esm/vs/editor/editor.api.js';

type EditorOptions = Monaco.editor.IStandaloneEditorConstructionOptions;
type DiffEditorOptions = Monaco.editor.IStandaloneDiffEditorConstructionOptions;

/** Height of one editor line; the container is sized in these. */
export const LINE_HEIGHT_PX = 19;

// What the person approves is untrusted text: nothing in it may hide. Long lines wrap, so text
// far to the right is in view; control and bidi characters are drawn; invisible and look-alike
// characters are boxed in every part of the file (there are no grammars, so no comment or string
// exemptions); leading and trailing whitespace is drawn, so a tab and eight spaces differ.
const UNTRUSTED_TEXT_OPTIONS = {
  readOnly: true,
  wordWrap: 'on',
  renderControlCharacters: true,
  unicodeHighlight: {
    invisibleCharacters: true,
    ambiguousCharacters: true,
    nonBasicASCII: false,
    includeComments: true,
    includeStrings: true,
  },
  renderWhitespace: 'boundary',
  automaticLayout: true,
  minimap: { enabled: false },
  scrollBeyondLastLine: false,
  fontSize: 13,
  lineHeight: LINE_HEIGHT_PX,
  // No theme here: Monaco's theme is page-wide, and creating an editor with one would reset the
  // console's (monacoSetup keeps it in step with the light or dark console).
} satisfies EditorOptions;

/** The side-by-side diff of an existing file. */
export const DIFF_EDITOR_OPTIONS = {
  ...UNTRUSTED_TEXT_OPTIONS,
  originalEditable: false,
  renderSideBySide: true,
  useInlineViewWhenSpaceIsLimited: false,
  // A whitespace-only change (re-indenting a `return`, a Makefile tab) changes what runs: show it,
  // as the "+N −M" counts (taken from the unified diff) already do.
  ignoreTrimWhitespace: false,
  diffWordWrap: 'on',
  renderOverviewRuler: false,
  renderMarginRevertIcon: false,
} satisfies DiffEditorOptions;

/** The new file's content, on the right of an empty "new file" side. */
export const NEW_FILE_EDITOR_OPTIONS = {
  ...UNTRUSTED_TEXT_OPTIONS,
  overviewRulerLanes: 0,
} satisfies EditorOptions;

/**
 * How many lines a new file adds, counted as the unified diff counts them (a final newline ends
 * the last line rather than starting another): 'a\nb\n' and 'a\nb' both add 2, '' adds none.
 */
export function addedLineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Marks lines 1…count as added, with the diff editor's own classes (green line, "+" gutter sign). */
export function addedLinesDecoration(count: number): Monaco.editor.IModelDeltaDecoration[] {
  if (count === 0) return [];
  return [
    {
      range: { startLineNumber: 1, startColumn: 1, endLineNumber: count, endColumn: 1 },
      options: {
        isWholeLine: true,
        className: 'line-insert',
        marginClassName: 'gutter-insert',
        linesDecorationsClassName: 'insert-sign codicon codicon-diff-insert',
      },
    },
  ];
}

/** The tallest an editor grows; past it, its content scrolls inside it. */
export const EDITOR_MAX_HEIGHT_PX = 480;

/** The container height for content of `contentHeightPx`, within sensible bounds. */
export function editorHeightPx(contentHeightPx: number): number {
  return Math.min(EDITOR_MAX_HEIGHT_PX, Math.max(120, Math.ceil(contentHeightPx) + 4));
}
