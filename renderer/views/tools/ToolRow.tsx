import { memo } from 'react';
import type { ToolHealth, ToolStatus } from '../../../shared/health';
import { boundsParts } from '../../format/bounds';
import { revealInvisibles } from '../../format/invisibles';
import { formatClock } from '../../format/time';
import { ExpandableText } from '../common/ExpandableText';
import { NameList } from '../common/NameList';
import { TierBadge } from '../common/TierBadge';
import { VisibleText } from '../common/VisibleText';

/** How much of a health message a row shows before "Show all". */
export const HEALTH_MESSAGE_CHARS = 300;

/** The effective tier, and why it is above the declared one when it is. */
function EffectiveTier({ tool }: { tool: ToolStatus }) {
  if (tool.effectiveTier === tool.tier) return <TierBadge tier={tool.effectiveTier} />;
  return (
    <>
      <TierBadge tier={tool.effectiveTier} />
      <p className="tier-raised" data-testid="tier-raised">
        Raised from {tool.tier}
        {tool.tierRaisedBecause ? `: ${tool.tierRaisedBecause}` : ''}
      </p>
    </>
  );
}

/** The health verdict: healthy, unavailable with the tool's message, or not checked yet. */
function Health({ health }: { health: ToolHealth }) {
  const checked = health.checkedAt ? (
    <span className="note" title={health.checkedAt}>
      {' '}
      checked {formatClock(health.checkedAt)}
    </span>
  ) : null;
  if (health.state === 'unknown') return <span className="health health-unknown">not checked yet</span>;
  return (
    <>
      <span className={`health health-${health.state}`} data-testid="health-state">
        {health.state === 'healthy' ? 'healthy' : 'unavailable'}
      </span>
      {checked}
      {health.message ? (
        <div className="health-message" data-testid="health-message">
          <ExpandableText text={health.message} maxChars={HEALTH_MESSAGE_CHARS} label="health message" />
        </div>
      ) : null}
    </>
  );
}

/** Where a manifest tool of the tools home comes from: its source, files and their hashes, and its review. */
function ToolSource({ source }: { source: NonNullable<ToolStatus['source']> }) {
  const short = (hash: string | undefined) => (hash ? hash.slice(0, 12) : '');
  return (
    <div className="tool-source" data-testid="tool-source" data-kind={source.kind} data-review={source.review}>
      <span className="note">
        {source.kind} · {source.review === 'trusted' ? 'reviewed' : source.review}
      </span>
      <dl className="bounds">
        <div>
          <dt>manifest</dt>
          <dd title={`${source.manifestPath}\nsha256 ${source.manifestSha256}`}>
            <VisibleText text={source.manifestPath} /> {short(source.manifestSha256)}
          </dd>
        </div>
        {source.codeFile ? (
          <div>
            <dt>{source.kind === 'wasm' ? 'module' : 'program'}</dt>
            <dd title={`${source.codeFile}\nsha256 ${source.codeSha256 ?? ''}`}>
              <VisibleText text={source.codeFile} /> {short(source.codeSha256)}
            </dd>
          </div>
        ) : null}
      </dl>
      {source.refusal ? (
        <p className="health-message" data-testid="tool-source-refusal">
          <ExpandableText text={source.refusal} maxChars={HEALTH_MESSAGE_CHARS} label="why it is held" />
        </p>
      ) : null}
    </div>
  );
}

/** One registered tool in the Tools table; its name, description and health message come from the tool's author. */
export const ToolRow = memo(function ToolRow({ tool }: { tool: ToolStatus }) {
  return (
    <tr
      data-testid="tool-row"
      data-tool={tool.name}
      data-available={String(tool.available)}
      data-health={tool.health.state}
      className={tool.available ? undefined : 'tool-unavailable'}
    >
      <td className="tool-identity">
        <span className="tool-name" title={revealInvisibles(tool.name)}>
          <VisibleText text={tool.name} />
        </span>{' '}
        <span className="note">{tool.version}</span>
        <p className="tool-description">
          <ExpandableText text={tool.description} maxChars={160} label="description" />
        </p>
        {tool.source ? <ToolSource source={tool.source} /> : null}
      </td>
      <td>
        <TierBadge tier={tool.tier} />
      </td>
      <td className="tool-effective-tier">
        <EffectiveTier tool={tool} />
      </td>
      <td>
        <NameList names={tool.sideEffects} none="none (pure)" />
      </td>
      <td>
        <NameList names={tool.capabilities} none="none" />
      </td>
      <td>
        <dl className="bounds">
          {boundsParts(tool.bounds).map((part) => (
            <div key={part.label}>
              <dt>{part.label}</dt>
              <dd>{part.value}</dd>
            </div>
          ))}
        </dl>
      </td>
      <td className="tool-health">
        <Health health={tool.health} />
      </td>
    </tr>
  );
});
