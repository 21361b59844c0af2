import { VisibleText } from './VisibleText';

/** Untrusted names (side effects, capabilities, folders) as a list of code, or words for an empty one. */
export function NameList({ names, none }: { names: readonly string[]; none: string }) {
  if (names.length === 0) return <span className="note">{none}</span>;
  return (
    <ul className="name-list">
      {names.map((name) => (
        <li key={name}>
          <code>
            <VisibleText text={name} />
          </code>
        </li>
      ))}
    </ul>
  );
}
