import { tierLevel, type SecurityTier, type SideEffect } from '../../shared/manifest';
import type { ToolClass, UpstreamToolDefinition } from '../../shared/upstream';

/**
 * The class a tool's MCP annotations suggest, shown at review as the starting choice. The MCP spec's
 * defaults stand for what a server did not say (readOnlyHint false, destructiveHint true,
 * openWorldHint true), so a tool that says nothing is suggested as the worst case: RESTRICTED,
 * writing files and the network. destructiveHint means something only when the tool is not read-only.
 */
export function suggestedClass(definition: UpstreamToolDefinition): ToolClass {
  const readOnly = definition.annotations?.readOnlyHint ?? false;
  const destructive = definition.annotations?.destructiveHint ?? true;
  const openWorld = definition.annotations?.openWorldHint ?? true;
  if (readOnly) return { tier: 'STANDARD', sideEffects: [openWorld ? 'NetRead' : 'FsRead'] };
  const writes: SideEffect[] = openWorld ? ['FsWrite', 'NetWrite'] : ['FsWrite'];
  return { tier: destructive ? 'RESTRICTED' : 'ELEVATED', sideEffects: writes };
}

/** The lowest tier a call to a tool nobody reviewed is judged at: annotations are a server's word, never trusted. */
const UNREVIEWED_FLOOR: SecurityTier = 'ELEVATED';

/**
 * The tier a call to an unreviewed tool is judged at: its suggested tier, raised to ELEVATED when
 * the annotations suggest less, so a server calling its tool read-only buys it nothing before review.
 */
export function unreviewedTier(suggested: ToolClass): SecurityTier {
  return tierLevel(suggested.tier) < tierLevel(UNREVIEWED_FLOOR) ? UNREVIEWED_FLOOR : suggested.tier;
}
