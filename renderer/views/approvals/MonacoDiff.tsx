import { useEffect, useRef, useState } from 'react';
import { guessLanguageId } from '../../format/language';
import { loadMonaco } from './monacoLoader';

const LINE_HEIGHT_PX = 19;
const MIN_HEIGHT_PX = 120;
const MAX_HEIGHT_PX = 480;

function editorHeight(before: string, after: string): number {
  const lines = Math.max(before.split('\n').length, after.split('\n').length);
  return Math.min(MAX_HEIGHT_PX, Math.max(MIN_HEIGHT_PX, lines * LINE_HEIGHT_PX + 24));
}

/** A read-only, side-by-side Monaco diff of a file before and after the call. */
export function MonacoDiff({ path, before, after }: { path: string; before: string; after: string }) {
  const containerRef = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState<string>();

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
        const original = monaco.editor.createModel(before, language);
        const modified = monaco.editor.createModel(after, language);
        const editor = monaco.editor.createDiffEditor(container, {
          readOnly: true,
          originalEditable: false,
          renderSideBySide: true,
          useInlineViewWhenSpaceIsLimited: false,
          automaticLayout: true,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          renderOverviewRuler: false,
          renderMarginRevertIcon: false,
          fontSize: 13,
          lineHeight: LINE_HEIGHT_PX,
          theme: 'vs-dark',
        });
        editor.setModel({ original, modified });
        dispose = () => {
          editor.dispose();
          original.dispose();
          modified.dispose();
        };
      })
      .catch((error: unknown) => {
        if (!cancelled) setFailure(error instanceof Error ? error.message : String(error));
      });
    return () => {
      cancelled = true;
      dispose?.();
    };
  }, [path, before, after]);

  if (failure) {
    return (
      <p className="hint" role="alert">
        The diff editor could not load ({failure}); the unified diff below shows the same change.
      </p>
    );
  }
  return (
    <div
      ref={containerRef}
      className="diff-editor"
      data-testid="diff-editor"
      aria-label={`Changes to ${path}`}
      style={{ height: editorHeight(before, after) }}
    />
  );
}
