import type { ReactNode } from 'react';
import type { SubCommand } from '../../../../shared/commandPreview';
import { VisibleText } from '../../common/VisibleText';
import { countOf } from '../../../../shared/plural';

/** A sub-command longer than this folds: its first characters show, the rest on request. */
export const FOLDED_SUB_COMMAND_CHARS = 400;

/** One sub-command: program and words, then its labels (each apart), then the code it runs unlisted. */
export function SubCommandItem({ command }: { command: SubCommand }) {
  const words = (
    <code className="sub-command-words">
      {command.argv.map((word, at) => (
        <span key={at} className={at === 0 ? 'program' : 'argument'}>
          <VisibleText text={word} />{' '}
        </span>
      ))}
    </code>
  );
  const long = command.argv.join(' ').length > FOLDED_SUB_COMMAND_CHARS;
  return (
    <li data-nested={command.nested ? 'true' : 'false'} data-testid="sub-command">
      {long ? (
        <details className="folded-sub-command">
          <summary>
            <VisibleText text={`${command.argv.join(' ').slice(0, FOLDED_SUB_COMMAND_CHARS / 4)}…`} />{' '}
            <span className="marker">({countOf(command.text.length, 'character')})</span>
          </summary>
          {words}
        </details>
      ) : (
        words
      )}
      {' '}
      <span className="sub-command-markers">{spaced(markersOf(command))}</span>
      {command.runsCode.map((hidden, at) => (
        <div key={`h${at}`} className="runs-code" data-testid="runs-code">
          <strong>runs code not shown here:</strong> <VisibleText text={hidden.why} />
          <pre>
            <VisibleText text={hidden.code} />
          </pre>
        </div>
      ))}
    </li>
  );
}

/** The labels of a sub-command: the program it runs when spelt otherwise, redirections, substitutions, nesting, connector. */
function markersOf(command: SubCommand): ReactNode[] {
  return [
    command.program !== undefined ? (
      <span key="p" className="marker program-run">
        runs <VisibleText text={command.program} />
      </span>
    ) : null,
    ...(command.decodedWords ?? []).map((word, at) => (
      <span key={`d${at}`} className="marker decoded">
        <VisibleText text={word.written} /> is <VisibleText text={word.value} />
      </span>
    )),
    ...command.redirects.map((redirect, at) => (
      <span key={`r${at}`} className="marker redirect">
        {redirect.op} <VisibleText text={redirect.target} />
      </span>
    )),
    ...command.substitutions.map((substitution, at) => (
      <span key={`s${at}`} className="marker substitution">
        runs <VisibleText text={substitution} />
      </span>
    )),
    command.nested ? (
      <span key="n" className="marker nested">
        nested
      </span>
    ) : null,
    command.connector ? (
      <span key="c" className="marker connector">
        {command.connector}
      </span>
    ) : null,
  ].filter((marker) => marker !== null);
}

/** Labels with a space between each, so that copied or read-out text keeps them apart too. */
function spaced(markers: ReactNode[]): ReactNode[] {
  return markers.flatMap((marker, at) => (at === 0 ? [marker] : [' ', marker]));
}
