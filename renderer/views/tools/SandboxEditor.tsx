import { useId, useState, type FormEvent } from 'react';
import type { UpstreamServerView } from '../../../shared/upstream';
import { revealInvisibles } from '../../format/invisibles';
import { sandboxKey, shownSandbox, type SandboxList, type UpstreamReview, type UpstreamReviewState } from '../../store/upstreamReview';
import { ProblemNote } from '../common/ProblemNote';
import { VisibleText } from '../common/VisibleText';

/** What the sandbox editor asks of the review store. */
export type SandboxActions = Pick<UpstreamReview, 'setSandboxNetwork' | 'addSandboxEntry' | 'removeSandboxEntry' | 'discardSandbox' | 'saveSandbox'>;

/** Each list the editor changes: its label, what an entry is, and an example of one. */
const LISTS: ReadonlyArray<{ list: SandboxList; label: string; entry: string; example: string }> = [
  { list: 'writable', label: 'Writable folders', entry: 'folder', example: '/home/you/notes' },
  { list: 'readable', label: 'Readable folders', entry: 'folder', example: '/home/you/docs' },
  { list: 'env', label: 'Variables from the gate’s environment (PATH, HOME and LANG always)', entry: 'variable', example: 'GITHUB_TOKEN' },
];

/** One list of the sandbox: its entries, each with a Remove button, and a field to add one. */
function ListEditor({ server, list, entries, actions }: { server: string; list: (typeof LISTS)[number]; entries: readonly string[]; actions: SandboxActions }) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const add = (event: FormEvent) => {
    event.preventDefault();
    actions.addSandboxEntry(server, list.list, typed);
    setTyped('');
  };
  return (
    <fieldset className="sandbox-list" data-testid={`sandbox-${list.list}`}>
      <legend>{list.label}</legend>
      {entries.length === 0 ? <p className="note">none</p> : null}
      <ul className="name-list">
        {entries.map((entry) => (
          <li key={entry}>
            <code>
              <VisibleText text={entry} />
            </code>{' '}
            <button type="button" className="link-button" aria-label={`Remove ${revealInvisibles(entry)}`} data-testid="sandbox-remove" onClick={() => actions.removeSandboxEntry(server, list.list, entry)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form className="sandbox-add" onSubmit={add}>
        <label htmlFor={id} className="visually-hidden">
          Add a {list.entry} to {list.label.toLowerCase()}
        </label>
        <input id={id} type="text" spellCheck={false} placeholder={list.example} value={typed} data-testid="sandbox-input" onChange={(event) => setTyped(event.target.value)} />
        <button type="submit" data-testid="sandbox-add">
          Add
        </button>
      </form>
    </fieldset>
  );
}

/**
 * A stdio server's sandbox, to change on its card (before its launch is approved, or later): the
 * network, the writable and readable folders, the variables it gets. "Save sandbox" sends it with
 * the launch it was begun from; the gate checks it as servers.json is checked and writes it there,
 * and the new launch waits for approval. Unsaved changes stay until saved or discarded.
 */
export function SandboxEditor({ server, state, actions }: { server: UpstreamServerView; state: UpstreamReviewState; actions: SandboxActions }) {
  const sandbox = shownSandbox(state, server);
  const headingId = useId();
  if (server.transport !== 'stdio' || !sandbox) return null;
  const key = sandboxKey(server.name);
  const draft = state.sandboxes[server.name];
  const busy = state.busy[key] === true;
  const problem = state.problems[key];
  return (
    <details className="sandbox-editor" open={draft !== undefined || problem !== undefined} data-testid="sandbox-editor">
      <summary id={headingId}>Change the sandbox</summary>
      <div role="group" aria-labelledby={headingId}>
        <label className="sandbox-network">
          <input type="checkbox" checked={sandbox.network} data-testid="sandbox-network" onChange={(event) => actions.setSandboxNetwork(server.name, event.target.checked)} /> Network: it may
          reach the network
        </label>
        {LISTS.map((list) => (
          <ListEditor key={list.list} server={server.name} list={list} entries={sandbox[list.list]} actions={actions} />
        ))}
        {draft && draft.launchHash !== server.launchHash ? (
          <p className="decision-problem" role="alert" data-testid="sandbox-stale">
            servers.json changed since you began changing this sandbox: discard your changes and make them again.
          </p>
        ) : null}
        <p className="note">
          Saving writes it into this server&apos;s entry in servers.json; its launch then changes, so it {server.status === 'awaiting-launch' ? 'still waits' : 'stops and waits'} for
          you to approve it.
        </p>
        <div className="upstream-action">
          <button type="button" className="approve" data-testid="sandbox-save" disabled={busy || !draft} onClick={() => void actions.saveSandbox(server.name)}>
            {busy ? 'Saving…' : 'Save sandbox'}
          </button>
          <button type="button" data-testid="sandbox-discard" disabled={busy || !draft} onClick={() => actions.discardSandbox(server.name)}>
            Discard changes
          </button>
          <ProblemNote problem={problem} testId="sandbox-problem" inline />
        </div>
      </div>
    </details>
  );
}
