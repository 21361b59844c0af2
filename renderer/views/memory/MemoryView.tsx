import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { MemoryPage } from '../../../shared/memory';
import { describe } from '../../store/consoleSync';
import { useConsoleState, useConsoleSync } from '../consoleContext';
import { ProblemNote } from '../common/ProblemNote';
import { VisibleText } from '../common/VisibleText';

/** How soon after the log moves (a note stored or deleted) the list is loaded again. */
const RELOAD_DELAY_MS = 400;

/**
 * The workspace's memory: the notes agents keep, newest first or those matching a search (best
 * match first, the matched words shown in a snippet), each with who wrote it and in which call; a
 * person deletes one in a click, recorded in the audit log as their own call.
 */
export function MemoryView() {
  const sync = useConsoleSync();
  // Followed only while shown: a note stored or deleted moves the audit log, which reloads the list.
  const shown = useConsoleState((s) => s.view.tab === 'Memory');
  const logMoved = useConsoleState((s) => (shown ? s.audit[0]?.seq : undefined));
  const [page, setPage] = useState<MemoryPage>();
  const [problem, setProblem] = useState<string>();
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');

  const load = useCallback(async () => {
    try {
      setPage(await sync.bridge.memoryNotes(query.trim() === '' ? {} : { query }));
      setProblem(undefined);
    } catch (error) {
      setProblem(describe(error));
    }
  }, [sync, query]);

  useEffect(() => {
    if (!shown) return;
    const timer = setTimeout(() => void load(), RELOAD_DELAY_MS);
    return () => clearTimeout(timer);
  }, [load, shown, logMoved]);

  function search(event: FormEvent): void {
    event.preventDefault();
    setQuery(typed);
  }

  async function remove(id: number): Promise<void> {
    try {
      await sync.bridge.deleteNote({ id });
      await load();
    } catch (error) {
      setProblem(describe(error));
    }
  }

  return (
    <>
      <form className="memory-search" role="search" onSubmit={search}>
        <input type="search" aria-label="Search the notes" placeholder="Words to look for" value={typed} onChange={(event) => setTyped(event.target.value)} />
        <button type="submit">Search</button>
      </form>
      <ProblemNote problem={problem} testId="memory-problem" />
      {page === undefined ? <p className="empty">Loading the notes…</p> : null}
      {page && page.notes.length === 0 ? (
        <p className="empty">{query.trim() === '' ? 'No agent has kept a note in this workspace yet.' : 'No note matches.'}</p>
      ) : null}
      {page && page.notes.length > 0 ? (
        <>
          <p className="memory-count" data-testid="memory-count">
            {query.trim() === '' ? `The newest of ${page.total} notes` : `${page.notes.length} of ${page.total} notes match, best first`}
          </p>
          <ul className="memory-notes" aria-label="Notes">
            {page.notes.map((note) => (
              <li key={note.id} className="memory-note" data-testid="memory-note" data-note-id={note.id}>
                <p className="note-text">
                  <VisibleText text={note.snippet ?? note.text} />
                </p>
                <p className="note-facts">
                  {note.tags.length > 0 ? (
                    <span className="note-tags">
                      tags: <VisibleText text={note.tags.join(', ')} />
                    </span>
                  ) : null}{' '}
                  by <VisibleText text={note.agent} /> in call <code>{note.callId}</code>, {new Date(note.createdAt).toLocaleString()}
                </p>
                <button type="button" className="deny" aria-label={`Delete note ${note.id}`} onClick={() => void remove(note.id)}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
