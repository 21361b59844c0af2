import { useId } from 'react';
import type { UpstreamSandbox, UpstreamServerView } from '../../../shared/upstream';
import { launchKey, toolsToReview, trustAllKey, type UpstreamReviewState } from '../../store/upstreamReview';
import { NameList } from '../common/NameList';
import { ProblemNote } from '../common/ProblemNote';
import { CommandLineText } from '../common/CommandLineText';
import { VisibleText } from '../common/VisibleText';
import { SandboxEditor, type SandboxActions } from './SandboxEditor';
import { UpstreamToolCard, type UpstreamActions } from './UpstreamToolCard';

/** What a server's card asks of the review store: its tools' reviews, its launch, its sandbox. */
export type UpstreamServerActions = UpstreamActions & SandboxActions;

const STATUS_WORDS: Record<UpstreamServerView['status'], string> = {
  'awaiting-launch': 'awaiting launch approval',
  starting: 'starting',
  ready: 'ready',
  restarting: 'restarting',
  failed: 'failed',
  stopped: 'stopped',
};

/** What a stdio server may reach (and the person may change), or a plain warning that nothing holds it in. */
function Sandbox({ server, state, actions }: { server: UpstreamServerView; state: UpstreamReviewState; actions: UpstreamServerActions }) {
  if (server.transport === 'http') {
    return <p className="note">Reached over HTTP: Toolgate does not run it, so no sandbox applies.</p>;
  }
  return (
    <>
      {server.sandboxed ? null : (
        <p className="upstream-unsandboxed" role="note" data-testid="unsandboxed">
          Runs without a sandbox: it can read, write and reach whatever your user account can.
        </p>
      )}
      {server.sandbox ? <SandboxFacts sandbox={server.sandbox} sandboxed={server.sandboxed} /> : null}
      <SandboxEditor server={server} state={state} actions={actions} />
    </>
  );
}

function SandboxFacts({ sandbox, sandboxed }: { sandbox: UpstreamSandbox; sandboxed: boolean }) {
  return (
    <dl className="upstream-facts" aria-label={sandboxed ? 'Sandbox' : 'Sandbox as servers.json sets it (not applied)'} data-testid="sandbox">
      <div>
        <dt>Network</dt>
        <dd>{sandbox.network ? 'on' : 'off'}</dd>
      </div>
      <div>
        <dt>Writable</dt>
        <dd>
          <NameList names={sandbox.writable} none="none" />
        </dd>
      </div>
      <div>
        <dt>Readable</dt>
        <dd>
          <NameList names={sandbox.readable} none="none" />
        </dd>
      </div>
      <div>
        <dt>From the gate’s environment</dt>
        <dd>
          <NameList names={['PATH', 'HOME', 'LANG', ...sandbox.env]} none="none" />
        </dd>
      </div>
    </dl>
  );
}

/** A stdio server that has never started: its exact command, and the person's yes that starts it. */
function LaunchApproval({ server, state, actions }: { server: UpstreamServerView; state: UpstreamReviewState; actions: UpstreamActions }) {
  const key = launchKey(server.name);
  const busy = state.busy[key] === true;
  const headingId = useId();
  return (
    <div className="upstream-launch" role="group" aria-labelledby={headingId} data-testid="launch-approval">
      <h4 id={headingId}>Start this server?</h4>
      <p>Toolgate will run exactly this command:</p>
      <pre className="upstream-command" data-testid="launch-command">
        <CommandLineText text={server.launch} />
      </pre>
      <p className="note">Launch hash {server.launchHash}. If servers.json changes, it asks again.</p>
      <div className="upstream-action">
        <button type="button" className="approve" data-testid="approve-launch" disabled={busy} onClick={() => void actions.approveLaunch(server.name)}>
          {busy ? 'Starting…' : 'Approve launch'}
        </button>
        <ProblemNote problem={state.problems[key]} testId="launch-problem" inline />
      </div>
    </div>
  );
}

/**
 * A server whose start failed, or whose restarts gave up: once what it lacked is fixed (a program
 * installed, a folder made), the person starts it again, with the launch they approved.
 */
function StartAgain({ server, state, actions }: { server: UpstreamServerView; state: UpstreamReviewState; actions: UpstreamActions }) {
  const key = launchKey(server.name);
  const busy = state.busy[key] === true;
  return (
    <div className="upstream-action">
      <button type="button" data-testid="start-again" disabled={busy} onClick={() => void actions.approveLaunch(server.name)}>
        {busy ? 'Starting…' : 'Start again'}
      </button>
      <ProblemNote problem={state.problems[key]} testId="start-again-problem" inline />
    </div>
  );
}

/**
 * One upstream server: how it is reached and where it stands, what it may touch (a stdio server's
 * sandbox to change there), the exact command
 * or URL, its launch approval while it waits for one, the tools it lists and those the gate refused.
 */
export function UpstreamServerCard({ server, state, actions }: { server: UpstreamServerView; state: UpstreamReviewState; actions: UpstreamServerActions }) {
  const headingId = useId();
  const waiting = toolsToReview(server);
  const allKey = trustAllKey(server.name);
  return (
    <section className="upstream-server" aria-labelledby={headingId} data-testid="upstream-server" data-server={server.name} data-status={server.status}>
      <header className="upstream-server-head">
        <h3 id={headingId}>
          <VisibleText text={server.name} />
        </h3>
        <span className="note">{server.transport}</span>
        <span className={`upstream-status upstream-status-${server.status}`} data-testid="upstream-status">
          {STATUS_WORDS[server.status]}
        </span>
        {server.protocol ? (
          <span className="note" data-testid="upstream-protocol" title="The MCP revision this server speaks with the gate">
            MCP {server.protocol}
          </span>
        ) : null}
        {server.restarts > 0 ? <span className="note">restarted {server.restarts === 1 ? 'once' : `${server.restarts} times`}</span> : null}
      </header>
      {server.detail ? (
        <p className="upstream-detail" data-testid="upstream-detail">
          <VisibleText text={server.detail} />
        </p>
      ) : null}
      <Sandbox server={server} state={state} actions={actions} />
      <pre className="upstream-command" aria-label={server.transport === 'http' ? 'URL' : 'Launch command'} data-testid="upstream-launch">
        <CommandLineText text={server.launch} />
      </pre>
      {server.launchApproved ? null : <LaunchApproval server={server} state={state} actions={actions} />}
      {server.launchApproved && server.status === 'failed' ? <StartAgain server={server} state={state} actions={actions} /> : null}
      {server.refused.length > 0 ? (
        <ul className="upstream-refused" aria-label={`Tools of ${server.name} the gate refused`}>
          {server.refused.map((refused) => (
            <li key={refused.name} data-testid="refused-tool">
              <code>
                <VisibleText text={refused.name} />
              </code>{' '}
              refused: <VisibleText text={refused.message} />
            </li>
          ))}
        </ul>
      ) : null}
      {server.tools.length === 0 ? <p className="note">It lists no tools yet.</p> : null}
      {server.tools.map((tool) => (
        <UpstreamToolCard key={tool.name} server={server.name} tool={tool} state={state} actions={actions} />
      ))}
      {waiting.length > 1 ? (
        <div className="upstream-action">
          <button type="button" data-testid="trust-all" disabled={state.busy[allKey] === true} onClick={() => void actions.trustAllShown(server.name)}>
            Trust all {waiting.length} shown
          </button>
          <ProblemNote problem={state.problems[allKey]} testId="trust-all-problem" inline />
        </div>
      ) : null}
    </section>
  );
}
