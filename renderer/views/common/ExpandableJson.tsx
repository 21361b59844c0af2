import { compactJson, prettyJson } from '../../format/json';
import { ExpandableText } from './ExpandableText';

/**
 * A value as compact JSON cut to `maxChars`, with a toggle to the full, indented form. Rendered as
 * text only: tool output is untrusted.
 */
export function ExpandableJson({ value, maxChars = 120, label }: { value: unknown; maxChars?: number; label: string }) {
  return <ExpandableText text={compactJson(value)} full={() => prettyJson(value)} maxChars={maxChars} label={label} code />;
}
