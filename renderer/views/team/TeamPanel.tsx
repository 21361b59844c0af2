import { useCallback, useEffect, useState } from 'react';
import type { TeamPrompt, TeamPromptFilter, TeamStatus } from '../../../shared/team';
import { describe } from '../../store/consoleSync';
import { useConsoleSync } from '../consoleContext';
import { ProblemNote } from '../common/ProblemNote';

/** The filters a person can type: each narrows the list to an exact gate, machine, workspace or agent. */
const FILTER_FIELDS = ['gate', 'machine', 'workspace', 'agent'] as const;

/** What a prompt would do, in one line: the command, the path or the URL. */
function whatItDoes(prompt: TeamPrompt): string {
  const { preview } = prompt.request;
  if (preview.kind === 'command') return preview.command;
  if (preview.kind === 'diff' || preview.kind === 'delete') return preview.path;
  if (preview.kind === 'request') return preview.url;
  return JSON.stringify(prompt.request.arguments).slice(0, 200);
}

/** How a prompt stands: waiting, or who decided it and how, or how it ended at its gate. */
function standing(prompt: TeamPrompt): string {
  if (prompt.decision) return `${prompt.decision.decision === 'approve' ? 'approved' : 'denied'} by ${prompt.decision.approver}`;
  if (prompt.ended) return prompt.ended.outcome;
  return 'waiting';
}

/**
 * The team's prompts in a gate's console (team mode only): each with its gate, machine, workspace
 * and agent, filterable, and Approve or Deny for those still waiting. An answer that came second is
 * told who answered first and how.
 */
export function TeamPanel() {
  const { bridge } = useConsoleSync();
  const [status, setStatus] = useState<TeamStatus>();
  const [prompts, setPrompts] = useState<readonly TeamPrompt[]>([]);
  const [filter, setFilter] = useState<TeamPromptFilter>({ waitingOnly: true });
  const [note, setNote] = useState<string>();

  const load = useCallback(async () => {
    try {
      setStatus(await bridge.teamStatus({}));
      setPrompts(await bridge.listTeamPrompts(filter));
    } catch (error) {
      setNote(describe(error));
    }
  }, [bridge, filter]);

  useEffect(() => {
    void load();
    return bridge.onTeamChanged(() => void load());
  }, [bridge, load]);

  async function answer(prompt: TeamPrompt, decision: 'approve' | 'deny'): Promise<void> {
    try {
      const result = await bridge.decideTeamPrompt({ gate: prompt.gate, approvalId: prompt.request.approvalId, bindingHash: prompt.request.bindingHash, decision });
      setNote(result.won ? undefined : `${result.decision.approver} already ${result.decision.decision === 'approve' ? 'approved' : 'denied'} it${result.decision.reason ? `: ${result.decision.reason}` : ''}`);
      await load();
    } catch (error) {
      setNote(describe(error));
    }
  }

  if (!status || status.state === 'off') return null;
  return (
    <section className="team-panel" aria-label="Team prompts" data-testid="team-panel">
      <div className={`banner ${status.state === 'online' ? 'banner-info' : 'banner-warning'}`} role="status" data-testid="team-status">
        Team {status.team} as {status.member}: {status.state === 'online' ? `connected to ${status.server}` : `offline (${status.reason ?? 'reconnecting'}); this console answers this gate's prompts meanwhile${status.queued ? `, ${status.queued} messages wait to be sent` : ''}`}
      </div>
      <div className="team-filters">
        {FILTER_FIELDS.map((field) => (
          <input
            key={field}
            aria-label={`Only this ${field}`}
            placeholder={field}
            value={filter[field] ?? ''}
            onChange={(event) => setFilter((current) => ({ ...current, [field]: event.target.value || undefined }))}
          />
        ))}
        <label>
          <input type="checkbox" checked={filter.waitingOnly ?? false} onChange={(event) => setFilter((current) => ({ ...current, waitingOnly: event.target.checked }))} /> waiting only
        </label>
      </div>
      <ProblemNote problem={note} testId="team-note" />
      <ul className="team-prompts">
        {prompts.map((prompt) => (
          <li key={`${prompt.gate}/${prompt.request.approvalId}`} data-testid="team-prompt">
            <strong>{prompt.request.tool}</strong> {whatItDoes(prompt)} · {prompt.gate} on {prompt.machine} in {prompt.workspace} · {prompt.request.agent?.client ?? 'unnamed agent'} · {standing(prompt)}
            {prompt.state === 'waiting' && (status.approver || prompt.gate === status.member) ? (
              <>
                {' '}
                <button type="button" onClick={() => void answer(prompt, 'approve')}>
                  Approve
                </button>{' '}
                <button type="button" onClick={() => void answer(prompt, 'deny')}>
                  Deny
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
