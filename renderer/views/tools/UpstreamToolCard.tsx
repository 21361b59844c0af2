import { useId } from 'react';
import { SECURITY_TIERS, SecurityTierSchema, SideEffectSchema } from '../../../shared/manifest';
import type { UpstreamToolView } from '../../../shared/upstream';
import { revealInvisibles } from '../../format/invisibles';
import { findingsKey, shownCapabilities, shownClass, trustKey, type UpstreamReview, type UpstreamReviewState } from '../../store/upstreamReview';
import { countFindings, FindingList } from '../common/FindingList';
import { ProblemNote } from '../common/ProblemNote';
import { TierBadge } from '../common/TierBadge';
import { VisibleText } from '../common/VisibleText';
import { DefinitionDiff } from './DefinitionDiff';
import { schemaArguments } from './schemaArguments';

/** What the review forms ask of the section's UpstreamReview. */
export type UpstreamActions = Pick<
  UpstreamReview,
  'chooseTier' | 'chooseSideEffect' | 'chooseCapabilities' | 'confirmFindings' | 'trustTool' | 'trustAllShown' | 'approveLaunch'
>;

const PIN_WORDS: Record<UpstreamToolView['pin'], string> = {
  trusted: 'trusted',
  unreviewed: 'unreviewed: not offered to agents until trusted',
  changed: 'changed: disabled until reviewed',
};

/** How a tool stands: trusted, waiting for its first review, or disabled since its definition changed. */
function PinBadge({ pin }: { pin: UpstreamToolView['pin'] }) {
  return (
    <span className={`pin-badge pin-${pin}`} data-testid="pin-badge">
      {PIN_WORDS[pin]}
    </span>
  );
}

/** The arguments its input schema declares; names and descriptions are the server's text. */
function Arguments({ tool }: { tool: UpstreamToolView }) {
  const args = schemaArguments(tool.definition.inputSchema);
  if (args.length === 0) return <p className="note">It takes no arguments.</p>;
  return (
    <table className="data-table upstream-arguments" aria-label={`Arguments of ${revealInvisibles(tool.registeredAs)}`}>
      <thead>
        <tr>
          <th scope="col">Argument</th>
          <th scope="col">Type</th>
          <th scope="col">Required</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {args.map((arg) => (
          <tr key={arg.name} data-testid="upstream-argument">
            <td>
              <code>
                <VisibleText text={arg.name} />
              </code>
            </td>
            <td>
              <code>
                <VisibleText text={arg.type} />
              </code>
            </td>
            <td>{arg.required ? 'required' : 'optional'}</td>
            <td>{arg.description === undefined ? <span className="note">none</span> : <VisibleText text={arg.description} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The review form of a tool waiting for the person: tier and side effects pre-filled from the
 * server's hint, a confirmation when its definition has findings, and Trust, which names the
 * definition hash shown here.
 */
function ReviewForm({ server, tool, state, actions }: { server: string; tool: UpstreamToolView; state: UpstreamReviewState; actions: UpstreamActions }) {
  const id = useId();
  const chosen = shownClass(state, server, tool);
  const key = trustKey(server, tool.name);
  const busy = state.busy[key] === true;
  return (
    <div className="upstream-review" role="group" aria-label={`Review ${revealInvisibles(tool.registeredAs)}`} data-testid="upstream-review">
      <p className="note">
        Pre-filled from the server&apos;s hint (its annotations), which is not trusted: choose what this tool may do.
      </p>
      <label htmlFor={`${id}-tier`}>Tier </label>
      <select
        id={`${id}-tier`}
        data-testid="review-tier"
        value={chosen.tier}
        onChange={(event) => actions.chooseTier(server, tool, SecurityTierSchema.parse(event.target.value))}
      >
        {SECURITY_TIERS.map((tier) => (
          <option key={tier} value={tier}>
            {tier}
          </option>
        ))}
      </select>
      <fieldset className="side-effect-choices">
        <legend>Side effects (none: pure)</legend>
        {SideEffectSchema.options.map((effect) => (
          <label key={effect}>
            <input
              type="checkbox"
              data-testid="review-side-effect"
              value={effect}
              checked={chosen.sideEffects.includes(effect)}
              onChange={(event) => actions.chooseSideEffect(server, tool, effect, event.target.checked)}
            />
            {effect}
          </label>
        ))}
      </fieldset>
      <label htmlFor={`${id}-capabilities`}>Capabilities it needs </label>
      <input
        id={`${id}-capabilities`}
        type="text"
        data-testid="review-capabilities"
        placeholder="none, or e.g. net:read:api.github.com fs:write"
        value={shownCapabilities(state, server, tool)}
        onChange={(event) => actions.chooseCapabilities(server, tool, event.target.value)}
      />
      <p className="note">The gate runs the tool only where each is granted (--grant), as it does its own tools.</p>
      {tool.findings.length > 0 ? (
        <label className="findings-confirm">
          <input
            type="checkbox"
            data-testid="confirm-findings"
            checked={state.confirmed[findingsKey(server, tool)] === true}
            onChange={(event) => actions.confirmFindings(server, tool, event.target.checked)}
          />
          Trust despite {countFindings(tool.findings.length)}
        </label>
      ) : null}
      <div className="upstream-action">
        <button type="button" className="approve" data-testid="trust-tool" disabled={busy} onClick={() => void actions.trustTool(server, tool.name)}>
          {busy ? 'Trusting…' : `Trust ${revealInvisibles(tool.registeredAs)}`}
        </button>
        <ProblemNote problem={state.problems[key]} testId="trust-problem" inline />
      </div>
    </div>
  );
}

/**
 * One upstream tool: the name agents call, its title and description (the server's text, shown as
 * text with hidden characters visible), its pin, findings and arguments; a changed one shows what
 * changed; one not trusted has its review form.
 */
export function UpstreamToolCard({ server, tool, state, actions }: { server: string; tool: UpstreamToolView; state: UpstreamReviewState; actions: UpstreamActions }) {
  const { title, description } = tool.definition;
  return (
    <article className={`upstream-tool upstream-tool-${tool.pin}`} aria-label={revealInvisibles(tool.registeredAs)} data-testid="upstream-tool" data-tool={revealInvisibles(tool.registeredAs)} data-pin={tool.pin}>
      <header className="upstream-tool-head">
        <code className="tool-name">
          <VisibleText text={tool.registeredAs} />
        </code>
        <PinBadge pin={tool.pin} />
        {tool.pin === 'trusted' ? (
          <>
            <TierBadge tier={tool.class.tier} />
            <span className="note" data-testid="trusted-side-effects">
              {tool.class.sideEffects.length > 0 ? tool.class.sideEffects.join(', ') : 'pure'}
            </span>
            {tool.class.capabilities?.length ? (
              <span className="note" data-testid="trusted-capabilities">
                needs {tool.class.capabilities.join(', ')}
              </span>
            ) : null}
          </>
        ) : null}
      </header>
      {title ? (
        <p className="upstream-tool-title" data-testid="upstream-tool-title">
          <VisibleText text={title} />
        </p>
      ) : null}
      <p className="tool-description" data-testid="upstream-tool-description">
        {description ? <VisibleText text={description} /> : <span className="note">No description.</span>}
      </p>
      <FindingList findings={tool.findings} where="in its definition" />
      <Arguments tool={tool} />
      {tool.pin === 'changed' ? (
        tool.previous ? (
          <DefinitionDiff previous={tool.previous} current={tool.definition} />
        ) : (
          <p className="note">Its definition changed since you trusted it; the gate did not keep the earlier one to compare.</p>
        )
      ) : null}
      {tool.pin === 'trusted' ? null : <ReviewForm server={server} tool={tool} state={state} actions={actions} />}
    </article>
  );
}
