import { useEffect, useRef, useState } from 'react';
import { revealInvisibles } from '../../format/invisibles';
import { guessLanguageId } from '../../format/language';
import { editorHeightPx, LINE_HEIGHT_PX } from './diffEditorOptions';
import { loadMonaco } from './monacoLoader';
import { mountDiffEditor, mountNewFileEditor } from './mountEditors';

// Until the editor reports the height its (wrapped) lines need, size it by the line count.
function estimatedHeight(before: string, after: string): number {
  const lines = Math.max(before.split('\n').length, after.split('\n').length);
  return editorHeightPx(lines * LINE_HEIGHT_PX + 20);
}

/** The left side of a new file's diff: nothing was there before. */
export function NewFileOriginal() {
  return (
    <div className="diff-created-original" data-testid="diff-original-empty">
      <span className="new-file">new file</span>
      <span className="hint">nothing here before</span>
    </div>
  );
}

/**
 * A read-only Monaco view of a file before and after the call: side by side for an existing file;
 * for a new one (`created`), an empty "new file" side next to the content, every line added.
 */
export function MonacoDiff({ path, before, after, created }: { path: string; before: string; after: string; created: boolean }) {
  const containerRef = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState<string>();
  const [height, setHeight] = useState(() => estimatedHeight(created ? '' : before, after));

  useEffect(() => {
    let cancelled = false;
    let dispose: (() => void) | undefined;
    loadMonaco()
      .then((monaco) => {
        const container = containerRef.current;
        if (cancelled || !container) return;
        const language = guessLanguageId(path);
        // Registering the id (without a grammar) keeps the model's language honest; colours would
        // need a tokenizer per language, which this console does not ship to stay small.
        if (!monaco.languages.getLanguages().some((known) => known.id === language)) {
          monaco.languages.register({ id: language });
        }
        const mount = { monaco, container, language, onContentHeight: (px: number) => setHeight(editorHeightPx(px)) };
        dispose = created ? mountNewFileEditor(mount, after) : mountDiffEditor(mount, before, after);
      })
      .catch((error: unknown) => {
        if (!cancelled) setFailure(error instanceof Error ? error.message : String(error));
      });
    return () => {
      cancelled = true;
      dispose?.();
    };
  }, [path, before, after, created]);

  if (failure) {
    return (
      <p className="hint" role="alert">
        The diff editor could not load ({failure}); the unified diff below shows the same change.
      </p>
    );
  }
  const label = `Changes to ${revealInvisibles(path)}`;
  if (!created) {
    return <div ref={containerRef} className="diff-editor" data-testid="diff-editor" aria-label={label} style={{ height }} />;
  }
  return (
    <div className="diff-editor diff-created" data-testid="diff-editor" data-created="true" aria-label={label} style={{ height }}>
      <NewFileOriginal />
      <div ref={containerRef} className="diff-created-content" />
    </div>
  );
}
