import { diffLines } from 'diff';
import type { UpstreamToolDefinition } from '../../../shared/upstream';
import { prettyJson } from '../../format/json';
import { VisibleText } from '../common/VisibleText';

/** How long the line diff may take before both sides are shown whole, every line marked. */
const DIFF_TIMEOUT_MS = 1000;

/** One line of one side: kept, or only on this side (removed on the left, added on the right). */
interface SideLine {
  text: string;
  changed: boolean;
}

function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The two sides of a line diff of `before` and `after`, each line marked when only that side has it. */
export function definitionSides(before: string, after: string): { previous: SideLine[]; current: SideLine[] } {
  const changes = diffLines(before, after, { timeout: DIFF_TIMEOUT_MS }) ?? [
    { value: before, removed: true, added: false },
    { value: after, added: true, removed: false },
  ];
  const previous: SideLine[] = [];
  const current: SideLine[] = [];
  for (const change of changes) {
    const lines = linesOf(change.value);
    if (!change.added) previous.push(...lines.map((text) => ({ text, changed: change.removed })));
    if (!change.removed) current.push(...lines.map((text) => ({ text, changed: change.added })));
  }
  return { previous, current };
}

function Side({ title, lines, mark, testId }: { title: string; lines: readonly SideLine[]; mark: '+' | '\u2212'; testId: string }) {
  const changedClass = mark === '+' ? 'diff-line-added' : 'diff-line-removed';
  return (
    <figure className="definition-side">
      <figcaption>{title}</figcaption>
      <pre data-testid={testId}>
        {lines.map((line, index) => (
          <span key={index} className={line.changed ? changedClass : undefined}>
            {line.changed ? mark : ' '} <VisibleText text={line.text} />
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}

/**
 * A changed tool's definition as the person trusted it and as the server sends it now, side by
 * side: a line diff of their indented JSON, lines only one side has marked − and +. Both are the
 * server's text, shown as text with hidden characters visible.
 */
export function DefinitionDiff({ previous, current }: { previous: UpstreamToolDefinition; current: UpstreamToolDefinition }) {
  const sides = definitionSides(prettyJson(previous), prettyJson(current));
  return (
    <div className="definition-diff" role="group" aria-label="The definition you trusted and the one the server sends now">
      <Side title="Trusted before" lines={sides.previous} mark={'\u2212'} testId="definition-previous" />
      <Side title="Sent now" lines={sides.current} mark="+" testId="definition-current" />
    </div>
  );
}
