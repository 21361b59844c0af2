import { Fragment } from 'react';
import { codePointLabel, splitInvisibles } from '../../format/invisibles';

/**
 * Untrusted text (a name or a value) with every hidden or bidi control character shown as a
 * styled ⟨U+XXXX⟩ escape, so the text cannot pass for something it is not.
 */
export function VisibleText({ text }: { text: string }) {
  const parts = splitInvisibles(text);
  return (
    <>
      {parts.map((part, index) =>
        part.kind === 'text' ? (
          <Fragment key={index}>{part.text}</Fragment>
        ) : (
          <span
            key={index}
            className="invisible-char"
            data-testid="invisible-char"
            title={`Hidden character ${codePointLabel(part.codePoint)}${part.name ? ` ${part.name}` : ''}`}
          >
            {part.text}
          </span>
        ),
      )}
    </>
  );
}
