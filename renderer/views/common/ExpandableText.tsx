import { useState } from 'react';
import { truncate } from '../../format/json';
import { VisibleText } from './VisibleText';

/**
 * Untrusted text cut to `maxChars`, with a "Show all" toggle to the whole of it (or to `full()`,
 * e.g. indented JSON, made only when shown). Hidden characters are shown as escapes in both forms.
 */
export function ExpandableText({
  text,
  full,
  maxChars,
  label,
  code = false,
}: {
  text: string;
  full?: () => string;
  maxChars: number;
  label: string;
  /** Show the short form in the monospace font (JSON); plain text otherwise (messages). */
  code?: boolean;
}) {
  const [expanded, setExpanded] = useState(false);
  const short = truncate(text, maxChars);
  const Inline = code ? 'code' : 'span';
  if (!short.truncated) {
    return (
      <Inline className="text-inline">
        <VisibleText text={text} />
      </Inline>
    );
  }
  return (
    <div className="text-expandable">
      {expanded ? (
        <pre className="text-full">
          <VisibleText text={full ? full() : text} />
        </pre>
      ) : (
        <Inline className="text-inline">
          <VisibleText text={short.text} />
        </Inline>
      )}
      <button
        type="button"
        className="link-button"
        aria-expanded={expanded}
        aria-label={expanded ? `Show less ${label}` : `Show all ${label}`}
        onClick={() => setExpanded(!expanded)}
      >
        {expanded ? 'Show less' : 'Show all'}
      </button>
    </div>
  );
}
