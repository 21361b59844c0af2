import type { RegisteredTool, ToolRegistry } from '../../registry/registry';
import { StepFailure } from './stepFailure';

/** Finds the tool by name; an unknown name is refused with the names agents are offered (an unreviewed tool's name is the server's text, not the gate's). */
export function lookupTool(registry: ToolRegistry, name: string): RegisteredTool | StepFailure {
  const found = registry.get(name);
  if (found) return found;
  const known = registry.listed().map((manifest) => manifest.name);
  const readOnly = registry.readOnly ? ' (this gate runs read-only: tools that write or spawn are not available)' : '';
  return StepFailure.of('lookup', 'ENOTFOUND', `no tool named ${JSON.stringify(name)}${readOnly}; the tools are: ${known.join(', ')}`, {
    tool: name,
    known,
  });
}
