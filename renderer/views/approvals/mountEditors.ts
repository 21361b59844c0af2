import type { MonacoApi } from './monacoLoader';
import {
  addedLineCount,
  addedLinesDecoration,
  DIFF_EDITOR_OPTIONS,
  NEW_FILE_EDITOR_OPTIONS,
} from './diffEditorOptions';

/** What to show and where; `onContentHeight` hears the height the text needs (wrapping included). */
export interface EditorMount {
  monaco: MonacoApi;
  container: HTMLElement;
  language: string;
  onContentHeight: (px: number) => void;
}

/** A side-by-side diff of an existing file; returns its disposer. */
export function mountDiffEditor({ monaco, container, language, onContentHeight }: EditorMount, before: string, after: string): () => void {
  const original = monaco.editor.createModel(before, language);
  const modified = monaco.editor.createModel(after, language);
  const editor = monaco.editor.createDiffEditor(container, DIFF_EDITOR_OPTIONS);
  editor.setModel({ original, modified });
  const sides = [editor.getOriginalEditor(), editor.getModifiedEditor()];
  const report = () => onContentHeight(Math.max(...sides.map((side) => side.getContentHeight())));
  const listeners = sides.map((side) => side.onDidContentSizeChange(report));
  report();
  return () => {
    for (const listener of listeners) listener.dispose();
    editor.dispose();
    original.dispose();
    modified.dispose();
  };
}

/**
 * A file that does not exist yet: its content alone, every line marked added. A diff editor would
 * pair the empty file's one (empty) line with the first new line and show it as deleted.
 */
export function mountNewFileEditor({ monaco, container, language, onContentHeight }: EditorMount, after: string): () => void {
  const model = monaco.editor.createModel(after, language);
  const editor = monaco.editor.create(container, { ...NEW_FILE_EDITOR_OPTIONS, model });
  const added = editor.createDecorationsCollection(addedLinesDecoration(addedLineCount(after)));
  const listener = editor.onDidContentSizeChange(() => onContentHeight(editor.getContentHeight()));
  onContentHeight(editor.getContentHeight());
  return () => {
    listener.dispose();
    added.clear();
    editor.dispose();
    model.dispose();
  };
}
