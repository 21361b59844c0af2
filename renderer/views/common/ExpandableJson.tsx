import { useState } from 'react';
import { compactJson, prettyJson, truncate } from '../../format/json';

/**
 * A value as compact JSON cut to `maxChars`, with a toggle to the full, indented form. Rendered as
 * text only: tool output is untrusted.
 */
export function ExpandableJson({ value, maxChars = 120, label }: { value: unknown; maxChars?: number; label: string }) {
  const [expanded, setExpanded] = useState(false);
  const compact = compactJson(value);
  const short = truncate(compact, maxChars);
  if (!short.truncated) return <code className="json-inline">{compact}</code>;
  return (
    <div className="json-expandable">
      {expanded ? <pre className="json-full">{prettyJson(value)}</pre> : <code className="json-inline">{short.text}</code>}
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
