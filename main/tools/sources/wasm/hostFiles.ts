import { relative, resolve } from 'node:path';
import { GateError } from '../../../../shared/errors';
import type { ToolContext } from '../../../registry/defineTool';
import { protectedMatch, slashed } from '../../protectedPaths';
import { replaceFileAtomically } from '../../stagedFile';
import { confinePath, isInside, readFileNoFollow, refuseSymlinkTarget, type ConfinedPath } from '../../workspacePath';

/** What the file host calls know of the call they serve. */
export interface FileCallScope {
  /** The tool's name, for refusals. */
  tool: string;
  /** The input fields the manifest names as paths (its pathArguments). */
  pathArguments: readonly string[];
  /** The call's input. */
  input: unknown;
  context: ToolContext;
}

/**
 * The file host calls, with the file tools' checks (workspacePath.ts, protectedPaths.ts):
 * - every path is confined to the workspace (`..`, absolute paths and symlinks out are EPERMISSION);
 * - a path must be, or lie inside, a path the call's own arguments name (the manifest's
 *   pathArguments). Those the gate checked before the call ran (workspace, protected paths with their
 *   grants, the policy's path rules, the effects recorded for undo), so a module reaches no file the
 *   person and the policy did not see named;
 * - writes never follow a symlink, never touch a protected path (the tool process does not know the
 *   gate's scoped grants, so none counts here: write_file serves those) and never happen in a preview.
 */
export class WasmFileCalls {
  constructor(private readonly scope: FileCallScope) {}

  /** A workspace file's bytes (at most maxBytes). */
  read(path: string, maxBytes: number): Uint8Array {
    const target = this.confine(path);
    if (!target.exists) throw new GateError('EVALIDATION', `${this.scope.tool} read ${JSON.stringify(path)}, which does not exist in the workspace`);
    return readFileNoFollow(this.scope.context.workspace, target.absolute, path, maxBytes).bytes;
  }

  /** Creates or replaces a workspace text file atomically; returns the bytes written. */
  write(path: string, bytes: Uint8Array): number {
    const { workspace, dryRun } = this.scope.context;
    if (dryRun) throw new GateError('EPERMISSION', `${this.scope.tool} tried to write ${JSON.stringify(path)} while only a preview was asked for`);
    const target = this.confine(path);
    refuseSymlinkTarget(workspace, path);
    for (const candidate of new Set([slashed(relative(workspace, resolve(workspace, path))), slashed(target.relative)])) {
      const match = protectedMatch(candidate);
      if (match) {
        throw new GateError(
          'EPERMISSION',
          `${this.scope.tool} may not write ${candidate}: rule protected:${match.rule.name} guards ${match.protectedPath} because ${match.rule.why}; WASM tools never write protected paths, write_file does under a --grant ${match.grant}`,
          { path: candidate, rule: `protected:${match.rule.name}` },
        );
      }
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new GateError('EVALIDATION', `${this.scope.tool} tried to write ${JSON.stringify(path)} with bytes that are not UTF-8 text`);
    }
    return replaceFileAtomically(workspace, target.absolute, text, { createParents: true });
  }

  private confine(path: string): ConfinedPath {
    const { workspace } = this.scope.context;
    const target = confinePath(workspace, path);
    const named = this.namedPaths();
    if (!named.some((root) => isInside(root, target.absolute))) {
      const fields = this.scope.pathArguments.length > 0 ? this.scope.pathArguments.join(', ') : 'none: the manifest declares no pathArguments';
      throw new GateError(
        'EPERMISSION',
        `${this.scope.tool} may reach only the paths its call's arguments name (${fields}); ${JSON.stringify(path)} is not one of them nor inside one`,
        { path },
      );
    }
    return target;
  }

  /** Real paths the call's path arguments name (the gate confined them already; again here for their real paths). */
  private namedPaths(): string[] {
    const input = (this.scope.input ?? {}) as Record<string, unknown>;
    return this.scope.pathArguments.flatMap((field) => {
      const value = input[field];
      return typeof value === 'string' ? [confinePath(this.scope.context.workspace, value, field).absolute] : [];
    });
  }
}
