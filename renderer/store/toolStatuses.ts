import type { ToolStatus } from '../../shared/health';

function checkedAtMs(status: ToolStatus | undefined): number {
  const ms = status?.health.checkedAt ? Date.parse(status.health.checkedAt) : Number.NaN;
  return Number.isNaN(ms) ? -1 : ms;
}

/**
 * Takes a listTools snapshot: its tools are the registered ones, but where a toolsChanged event
 * already delivered a later health check of a tool (an event that overtook the snapshot's reply),
 * that later verdict is kept.
 */
export function mergeToolSnapshot(held: readonly ToolStatus[], snapshot: readonly ToolStatus[]): ToolStatus[] {
  const heldByName = new Map(held.map((status) => [status.name, status]));
  return snapshot.map((status) => {
    const known = heldByName.get(status.name);
    return known && checkedAtMs(known) > checkedAtMs(status) ? known : status;
  });
}

/** The tools that cannot be called now (a health check found them unhealthy). */
export function unavailableTools(tools: readonly ToolStatus[]): ToolStatus[] {
  return tools.filter((status) => !status.available);
}
