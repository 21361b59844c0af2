import type { Capability, ToolManifest } from '../../../shared/manifest';
import { GateError } from '../../../shared/errors';
import { confinePath } from '../../tools/workspacePath';
import { StepFailure } from './stepFailure';

/** What the capability step found, for the audit. */
export interface CapabilityReport {
  required: Capability[];
  paths: Array<{ argument: string; requested: string; resolved: string }>;
}

/** Whether a granted capability covers a required one (a grant without scope covers every scope). */
export function covers(grant: Capability, required: Capability): boolean {
  const [grantKind, grantAccess, ...grantScope] = grant.split(':');
  const [kind, access, ...scope] = required.split(':');
  if (grantKind !== kind || grantAccess !== access) return false;
  if (grantScope.length === 0) return true;
  const granted = grantScope.join(':');
  const wanted = scope.join(':');
  if (granted.endsWith('/**')) return wanted === granted.slice(0, -3) || wanted.startsWith(granted.slice(0, -2));
  return granted === wanted;
}

/**
 * Every capability the tool declares must be granted to the gate, and every path argument must
 * stay inside the workspace (`..`, absolute paths and symlinks that leave it are refused).
 */
export function checkCapabilities(
  manifest: ToolManifest,
  input: unknown,
  grants: readonly Capability[],
  workspace: string,
): CapabilityReport | StepFailure {
  const missing = manifest.capabilities.filter((required) => !grants.some((grant) => covers(grant, required)));
  if (missing.length > 0) {
    return StepFailure.of(
      'capability',
      'EPERMISSION',
      `${manifest.name} needs ${missing.join(', ')}, which this gate does not grant; start the gate with --grant ${missing[0]} to allow it`,
      { missing },
    );
  }
  const paths: CapabilityReport['paths'] = [];
  for (const argument of manifest.pathArguments) {
    const requested = (input as Record<string, unknown>)[argument];
    if (typeof requested !== 'string') continue;
    try {
      paths.push({ argument, requested, resolved: confinePath(workspace, requested).relative || '.' });
    } catch (error) {
      if (error instanceof GateError) return new StepFailure('capability', error.toToolError());
      throw error;
    }
  }
  return { required: manifest.capabilities, paths };
}
