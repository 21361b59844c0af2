import { useEffect, useRef, useState } from 'react';
import type * as Monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import { revealInvisibles } from '../../../format/invisibles';
import { guessLanguageId } from '../../../format/language';
import { addedLineCount, addedLinesDecoration, DIFF_EDITOR_OPTIONS, editorHeightPx, LINE_HEIGHT_PX, NEW_FILE_EDITOR_OPTIONS } from '../diffEditorOptions';
import { loadMonaco, type MonacoApi } from '../monacoLoader';
import { NewFileOriginal } from '../MonacoDiff';

/** How a prompt's diff is edited: what its right side shows, whether it takes typing, and where typing goes. */
export interface DiffEditing {
  /** What the right side must show (the proposal, or the accepted hunks); undefined while the person's typing owns it. */
  shown: string | undefined;
  readOnly: boolean;
  onContent: (content: string) => void;
}

/** The mounted editor: its right-side model, and how to lock it. */
interface Mounted {
  model: Monaco.editor.ITextModel;
  setReadOnly: (readOnly: boolean) => void;
  dispose: () => void;
}

/** The diff of an existing file, its right (new) side editable. */
function mountDiff(monaco: MonacoApi, container: HTMLElement, language: string, path: string, before: string, after: string, onHeight: (px: number) => void): Mounted {
  const original = monaco.editor.createModel(before, language);
  const model = monaco.editor.createModel(after, language);
  const editor = monaco.editor.createDiffEditor(container, {
    ...DIFF_EDITOR_OPTIONS,
    originalAriaLabel: `${path} as it is`,
    modifiedAriaLabel: `New content of ${path} (editable)`,
  });
  editor.setModel({ original, modified: model });
  const modified = editor.getModifiedEditor();
  const sides = [editor.getOriginalEditor(), modified];
  const report = () => onHeight(Math.max(...sides.map((side) => side.getContentHeight())));
  const listeners = sides.map((side) => side.onDidContentSizeChange(report));
  report();
  return {
    model,
    setReadOnly: (readOnly) => modified.updateOptions({ readOnly }),
    dispose: () => {
      for (const listener of listeners) listener.dispose();
      editor.dispose();
      original.dispose();
      model.dispose();
    },
  };
}

/** A new file's content, editable, every line marked added. */
function mountNewFile(monaco: MonacoApi, container: HTMLElement, language: string, path: string, after: string, onHeight: (px: number) => void): Mounted {
  const model = monaco.editor.createModel(after, language);
  const editor = monaco.editor.create(container, { ...NEW_FILE_EDITOR_OPTIONS, model, ariaLabel: `New content of ${path} (editable)` });
  const added = editor.createDecorationsCollection(addedLinesDecoration(addedLineCount(after)));
  const listeners = [
    editor.onDidContentSizeChange(() => onHeight(editor.getContentHeight())),
    model.onDidChangeContent(() => added.set(addedLinesDecoration(addedLineCount(model.getValue())))),
  ];
  onHeight(editor.getContentHeight());
  return {
    model,
    setReadOnly: (readOnly) => editor.updateOptions({ readOnly }),
    dispose: () => {
      for (const listener of listeners) listener.dispose();
      added.clear();
      editor.dispose();
      model.dispose();
    },
  };
}

/**
 * The file diff of a write a person may edit before approving: the right side holds `shown` (the
 * proposed content, or the content of the accepted hunks) or the person's text, and, unless
 * `readOnly`, takes typing, reported through `onContent`. The left side is never editable.
 */
export function EditableDiff({
  path,
  before,
  after,
  created,
  shown,
  readOnly,
  onContent,
}: DiffEditing & {
  path: string;
  before: string;
  after: string;
  created: boolean;
}) {
  const containerRef = useRef<HTMLDivElement>(null);
  const mounted = useRef<Mounted>(undefined);
  // The latest props, for the editor's listeners and for the moment it finishes mounting.
  const latest = useRef({ shown, readOnly, onContent, applying: false });
  latest.current = { ...latest.current, shown, readOnly, onContent };
  const [failure, setFailure] = useState<string>();
  const [height, setHeight] = useState(() => editorHeightPx(Math.max(before.split('\n').length, after.split('\n').length) * LINE_HEIGHT_PX + 20));

  function show(target: Mounted): void {
    const state = latest.current;
    target.setReadOnly(state.readOnly);
    // Typing is never written back: React's copy of it lags behind the editor's.
    if (state.shown === undefined || target.model.getValue() === state.shown) return;
    state.applying = true;
    try {
      target.model.setValue(state.shown);
    } finally {
      state.applying = false;
    }
  }

  useEffect(() => {
    let cancelled = false;
    loadMonaco()
      .then((monaco) => {
        const container = containerRef.current;
        if (cancelled || !container) return;
        const language = guessLanguageId(path);
        if (!monaco.languages.getLanguages().some((known) => known.id === language)) monaco.languages.register({ id: language });
        const onHeight = (px: number) => setHeight(editorHeightPx(px));
        const target = created ? mountNewFile(monaco, container, language, path, after, onHeight) : mountDiff(monaco, container, language, path, before, after, onHeight);
        target.model.onDidChangeContent(() => {
          if (!latest.current.applying) latest.current.onContent(target.model.getValue());
        });
        mounted.current = target;
        show(target);
      })
      .catch((error: unknown) => {
        if (!cancelled) setFailure(error instanceof Error ? error.message : String(error));
      });
    return () => {
      cancelled = true;
      mounted.current?.dispose();
      mounted.current = undefined;
    };
  }, [path, before, after, created]);

  useEffect(() => {
    if (mounted.current) show(mounted.current);
  }, [shown, readOnly]);

  if (failure) {
    return (
      <p className="hint" role="alert">
        The diff editor could not load ({failure}), so the new content cannot be edited here; the unified diff below shows the change.
      </p>
    );
  }
  const label = `Changes to ${revealInvisibles(path)}; the new content is editable`;
  if (!created) {
    return <div ref={containerRef} className="diff-editor diff-editable" data-testid="diff-editor" data-editable={!readOnly} aria-label={label} style={{ height }} />;
  }
  // A new file: its content beside an empty "new file" side, as the read-only view shows it.
  return (
    <div className="diff-editor diff-created diff-editable" data-testid="diff-editor" data-created="true" data-editable={!readOnly} aria-label={label} style={{ height }}>
      <NewFileOriginal />
      <div ref={containerRef} className="diff-created-content" />
    </div>
  );
}
