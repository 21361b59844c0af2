import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Capability } from '../../shared/manifest';
import type { EntryState, ImageNote, PlannedChange, UndoRequest } from '../../shared/effects';
import { covers } from '../executor/steps/checkCapabilities';
import { protectedMatch } from '../tools/protectedPaths';
import { unifiedDiff } from '../tools/unifiedDiff';
import type { ImageStore } from './imageStore';
import { entryPath } from './undoApply';
import type { CallWithEffects } from './recordedEffects';
import { currentState } from './snapshot';
import { sameState } from './snapshotDiff';

/** One path of a plan with what applying it needs: the bytes to put back, when it is a file. */
export interface PathPlan extends PlannedChange {
  /** The before-image of a file to put back. */
  image?: string;
}

/** A plan, or why there can be none. */
export type UndoPlan = { changes: PathPlan[]; refusal?: undefined } | { refusal: string; changes: PathPlan[] };

/** What planning reads. */
export interface PlanDeps {
  workspace: string;
  store: ImageStore;
  grants: readonly Capability[];
}

/** Text shown in a diff only up to this size; past it, the sizes. */
const DIFFED_BYTES = 256 * 1024;

/**
 * What undoing `calls` (newest first) does to each path: the state the newest left it in is what
 * it must still be in, the state before the oldest is what it is put back to. A path whose current
 * state differs from the expected one is a conflict, unless `choices` says to keep it (dropped from
 * the plan) or restore it anyway. Refused whole when a file cannot be put back (its before-image
 * dropped or never stored) or a path falls under a protected rule the gate has no grant for.
 */
export function planUndo(deps: PlanDeps, calls: readonly CallWithEffects[], choices: UndoRequest['choices']): UndoPlan {
  const partial = calls.filter((call) => call.effects.omitted !== undefined);
  if (partial.length > 0) {
    return { refusal: partial.map((call) => `call ${call.callId} changed ${call.effects.effects.length + call.effects.omitted!} paths, more than the ${call.effects.effects.length} its record keeps`).join('; '), changes: [] };
  }
  const byPath = new Map<string, { expected: EntryState | null; target: EntryState | null; note?: ImageNote }>();
  for (const call of calls) {
    for (const effect of call.effects.effects) {
      const sides =
        effect.from === undefined
          ? [{ path: effect.path, before: effect.before, after: effect.after, note: effect.beforeImage }]
          : [
              { path: effect.from, before: effect.before, after: null, note: effect.beforeImage },
              { path: effect.path, before: null, after: effect.after, note: undefined },
            ];
      for (const { path, before, after, note } of sides) {
        const known = byPath.get(path);
        if (known) Object.assign(known, { target: before, note });
        else byPath.set(path, { expected: after, target: before, ...(note ? { note } : {}) });
      }
    }
  }
  const changes: PathPlan[] = [];
  const problems: string[] = [];
  for (const [path, { expected, target, note }] of [...byPath].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const current = currentState(deps.workspace, path);
    if (sameState(current, target)) continue;
    const conflict = !sameState(current, expected);
    if (conflict && choices[path] === 'keep-current') continue;
    const problem = pathProblem(deps, path, target, note);
    if (problem) {
      problems.push(problem);
      continue;
    }
    const image = target?.type === 'file' ? note?.image : undefined;
    changes.push({
      path,
      action: actionOf(current, target),
      expected,
      target,
      current,
      diff: diffOf(deps, path, current, target, image),
      ...(note?.redacted && target?.type === 'file' ? { redacted: true } : {}),
      ...(conflict && choices[path] !== 'restore-anyway' ? { conflict: true } : {}),
      ...(image ? { image } : {}),
    });
  }
  problems.push(...foldersNotEmptied(deps.workspace, changes));
  if (problems.length > 0) return { refusal: problems.join('; '), changes };
  return { changes };
}

/**
 * Folders the plan removes that would still hold something once the plan's own removals are done
 * (a file put there since, or one the person chose to keep): refused before anything is written,
 * so an undo never stops half way on a folder it cannot remove.
 */
function foldersNotEmptied(workspace: string, changes: readonly PathPlan[]): string[] {
  const removed = new Set(changes.filter((change) => change.current !== null && (change.target === null || change.target.type !== change.current.type)).map((change) => change.path));
  const problems: string[] = [];
  for (const change of changes) {
    if (change.current?.type !== 'dir' || !removed.has(change.path)) continue;
    let names: string[];
    try {
      names = readdirSync(join(workspace, change.path));
    } catch {
      continue;
    }
    const left = names.map((name) => `${change.path}/${name}`).filter((child) => !removed.has(child));
    if (left.length > 0) problems.push(`${change.path} is a folder the undo would remove, but it holds ${left.slice(0, 3).join(', ')}${left.length > 3 ? ' and more' : ''}, which the undone calls did not put there: move ${left.length > 1 ? 'them' : 'it'} out first`);
  }
  return problems;
}

/** Why a path cannot be put back, if it cannot. */
function pathProblem(deps: PlanDeps, path: string, target: EntryState | null, note: ImageNote | undefined): string | undefined {
  const match = protectedMatch(path);
  if (match && !deps.grants.some((grant) => grant.split(':').length > 2 && covers(grant, `fs:write:${path}`))) {
    return `${path} is under rule protected:${match.rule.name} (${match.rule.why}): undo writes through the same rules as the file tools; start the gate with --grant ${match.grant} to allow it`;
  }
  try {
    entryPath(deps.workspace, path);
  } catch (error) {
    return (error as Error).message;
  }
  if (target?.type !== 'file') return undefined;
  if (note?.tooLarge) return `${path} was over the 50 MB limit: it was listed, not stored, so it cannot be put back`;
  if (!note?.image || !deps.store.has(note.image)) return `${path} is no longer undoable: its before-image was dropped to keep the undo store under its size (settings undoStoreBytes)`;
  return undefined;
}

/** What is done to a path, in words. */
function actionOf(current: EntryState | null, target: EntryState | null): string {
  if (target === null) return current?.type === 'dir' ? 'remove folder' : 'delete';
  if (current === null) return target.type === 'dir' ? 'recreate folder' : target.type === 'symlink' ? 'recreate symlink' : 'recreate';
  if (current.type !== target.type) return `replace ${current.type} with ${target.type}`;
  if (current.hash === target.hash && current.target === target.target) return `chmod ${target.mode.toString(8)}`;
  return target.type === 'symlink' ? 'repoint symlink' : 'restore';
}

/** A unified diff of a text file from now to the target, or a line saying what changes. */
function diffOf(deps: PlanDeps, path: string, current: EntryState | null, target: EntryState | null, image: string | undefined): string {
  const describe = (state: EntryState | null) =>
    state === null ? 'nothing' : state.type === 'file' ? `file (${state.size ?? 0} bytes, mode ${state.mode.toString(8)})` : state.type === 'symlink' ? `symlink to ${state.target}` : `folder (mode ${state.mode.toString(8)})`;
  const from = current?.type === 'file' ? textOf(readCurrent(deps.workspace, path)) : current === null ? '' : undefined;
  const to = target?.type === 'file' ? textOf(image ? deps.store.read(image) : undefined) : target === null ? '' : undefined;
  if (from !== undefined && to !== undefined && (current?.type === 'file' || target?.type === 'file')) return unifiedDiff(path, from, to);
  return `${path}: ${describe(current)} → ${describe(target)}\n`;
}

function readCurrent(workspace: string, path: string): Buffer | undefined {
  try {
    return readFileSync(join(workspace, path));
  } catch {
    return undefined;
  }
}

/** Bytes as text for a diff, or undefined for binary or large content. */
function textOf(bytes: Buffer | undefined): string | undefined {
  if (!bytes || bytes.length > DIFFED_BYTES || bytes.includes(0)) return undefined;
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text) === bytes.length ? text : undefined;
}
