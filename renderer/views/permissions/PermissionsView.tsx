import { useCallback, useEffect, useState } from 'react';
import type { Permission } from '../../../shared/permissions';
import { describe } from '../../store/consoleSync';
import { useConsoleState, useConsoleSync } from '../consoleContext';
import { ProblemNote } from '../common/ProblemNote';

/** How soon after a change (a call decided, a grant made) the list is loaded again. */
const RELOAD_DELAY_MS = 400;

function when(iso: string | undefined, none: string): string {
  return iso ? new Date(iso).toLocaleString() : none;
}

/**
 * Every rule and grant in force: what it allows or denies, its layer and source (file and line, or
 * the approval that made it), for whom, until when, how often it decided a call and when it last
 * did; revoke in one click (grants, and rules of the user and project files), and keep a grant for
 * good in the user or project policy file once its rule has been read again.
 */
export function PermissionsView() {
  const sync = useConsoleSync();
  const policy = useConsoleState((s) => s.info?.policy);
  // Followed only while the list is shown: calls change every frame while agents work, and a hidden
  // list need not be redrawn (nor reloaded) for each. Showing it again reloads it.
  const shown = useConsoleState((s) => s.view.tab === 'Permissions');
  const calls = useConsoleState((s) => (shown ? s.calls : undefined));
  const [permissions, setPermissions] = useState<readonly Permission[]>();
  const [problem, setProblem] = useState<string>();
  /** The grant whose "Keep for good" is open: the person reviews the rule and picks the file. */
  const [keeping, setKeeping] = useState<string>();

  const load = useCallback(async () => {
    try {
      setPermissions(await sync.listPermissions());
      setProblem(undefined);
    } catch (error) {
      setProblem(describe(error));
    }
  }, [sync]);

  // Reloaded as the policy changes (a grant, a file edit) and as calls are decided (hit counts).
  useEffect(() => {
    if (!shown) return;
    const timer = setTimeout(() => void load(), RELOAD_DELAY_MS);
    return () => clearTimeout(timer);
  }, [load, policy, calls, shown]);

  async function keep(permission: Permission, file: 'user' | 'project'): Promise<void> {
    try {
      await sync.keepPermission(permission.id, file);
      setKeeping(undefined);
      await load();
    } catch (error) {
      setProblem(describe(error));
    }
  }

  async function revoke(permission: Permission): Promise<void> {
    try {
      await sync.revokePermission(permission.id);
      await load();
    } catch (error) {
      setProblem(describe(error));
    }
  }

  return (
    <>
      <ProblemNote problem={problem} testId="permissions-problem" />
      {permissions === undefined ? <p className="empty">Loading the rules in force…</p> : null}
      {permissions?.length === 0 ? <p className="empty">No rule or grant is in force: every call gets its tier's default.</p> : null}
      {permissions && permissions.length > 0 ? (
        <div className="table-scroll">
          <table className="data-table names-table" data-testid="permissions-table" aria-label="Rules and grants in force">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Effect</th>
                <th scope="col">Layer</th>
                <th scope="col">Source</th>
                <th scope="col">For</th>
                <th scope="col">Expires</th>
                <th scope="col" className="numeric">
                  Hits
                </th>
                <th scope="col">Last use</th>
                <th scope="col">Revoke or keep</th>
              </tr>
            </thead>
            <tbody>
              {permissions.map((permission) => (
                <tr key={permission.id} data-testid="permission-row" data-rule={permission.rule} data-layer={permission.layer}>
                  <td title={permission.rule}>
                    <code>{permission.rule}</code>
                  </td>
                  <td>{permission.effect}</td>
                  <td>{permission.layer}</td>
                  <td data-testid="permission-source" title={permission.source}>
                    {permission.source}
                  </td>
                  <td title={permission.scope}>{permission.scope}</td>
                  <td>{when(permission.expiresAt, permission.layer === 'session' ? 'when the gate stops' : 'never')}</td>
                  <td className="numeric" data-testid="permission-hits">
                    {permission.hits}
                  </td>
                  <td>{when(permission.lastUsed, 'not yet')}</td>
                  <td className="permission-actions">
                    {permission.revocable ? (
                      <button type="button" className="deny" aria-label={`Revoke ${permission.rule}`} onClick={() => void revoke(permission)}>
                        Revoke
                      </button>
                    ) : null}
                    {permission.layer === 'session' && permission.effect === 'allow' ? (
                      keeping === permission.id ? (
                        <KeepChoice permission={permission} onKeep={(file) => void keep(permission, file)} onCancel={() => setKeeping(undefined)} />
                      ) : (
                        <button type="button" aria-label={`Keep ${permission.rule} for good…`} onClick={() => setKeeping(permission.id)}>
                          Keep for good…
                        </button>
                      )
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}

/** Keeping a grant for good: what changes, said plainly, and which file; nothing is written until one is chosen. */
function KeepChoice({ permission, onKeep, onCancel }: { permission: Permission; onKeep: (file: 'user' | 'project') => void; onCancel: () => void }) {
  return (
    <div className="keep-choice" role="group" aria-label={`Keep ${permission.rule} for good`} data-testid="keep-choice">
      <p className="note">
        Written to a policy file, <code>{permission.rule}</code> allows matching calls of every agent, with no expiry, until you remove it. The grant it
        replaces goes.
      </p>
      <button type="button" onClick={() => onKeep('user')}>
        Save to the user policy
      </button>
      <button type="button" onClick={() => onKeep('project')}>
        Save to the project policy
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
