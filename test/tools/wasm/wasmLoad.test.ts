/**
 * Loading a WASM tool in process: a module importing anything but the host functions, or a host
 * call its manifest does not declare, is refused naming the import; a module outside the manifest's
 * folder or not matching its pin is refused; the file host calls hold to the file tools' checks, and
 * the fetch host call to the hosts the call's arguments name.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifestTool, loadPinnedManifestTool } from '../../../main/tools/sources/manifestFile';
import { fileSha256, pinnedModule } from '../../../main/tools/sources/sourcePins';
import { WasmFileCalls } from '../../../main/tools/sources/wasm/hostFiles';
import { WasmNetCalls } from '../../../main/tools/sources/wasm/hostNet';
import { SPIN_WAT, importingWat, writeWasmTool } from './wasmFixtures';

const root = mkdtempSync(join(tmpdir(), 'toolgate-wasm-load-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('imports and exports, checked at load', () => {
  it('refuses an import from another module or of a host function the gate lacks, naming it', async () => {
    await expect(loadManifestTool(writeWasmTool(root, 'env_import', importingWat('env', 'system')))).rejects.toMatchObject({
      code: 'EVALIDATION',
      message: expect.stringContaining('imports env.system (function), which the gate does not provide: a WASM tool may import only toolgate.fail, toolgate.read_file, toolgate.write_file'),
      details: { import: 'env.system' },
    });
    await expect(loadManifestTool(writeWasmTool(root, 'environ', importingWat('toolgate', 'env')))).rejects.toThrow(
      'imports toolgate.env (function), which the gate does not provide: WASM tools read no environment; pass a secret as an argument',
    );
  });

  it('refuses read_file without FsRead and fs:read, write_file without FsWrite and fs:write, http_fetch without NetRead, net:read and urlArguments', async () => {
    await expect(loadManifestTool(writeWasmTool(root, 'reads', importingWat('toolgate', 'read_file')))).rejects.toThrow(
      'imports toolgate.read_file, which reads a workspace file, but its manifest does not declare it: add "FsRead" to sideEffects and "fs:read" to capabilities',
    );
    await expect(loadManifestTool(writeWasmTool(root, 'fetches', importingWat('toolgate', 'http_fetch')))).rejects.toThrow(
      'imports toolgate.http_fetch, which fetches a URL, but its manifest does not declare it: add "NetRead" to sideEffects and "net:read" to capabilities',
    );
    const noUrls = { tier: 'SAFE', determinism: 'NonDeterministic', sideEffects: ['NetRead'], capabilities: ['net:read'] };
    await expect(loadManifestTool(writeWasmTool(root, 'fetches_anywhere', importingWat('toolgate', 'http_fetch'), { manifest: noUrls }))).rejects.toThrow(
      'imports toolgate.http_fetch, but its manifest names no urlArguments',
    );
    const declared = writeWasmTool(root, 'writes', importingWat('toolgate', 'write_file'), {
      manifest: { tier: 'ELEVATED', determinism: 'Deterministic', sideEffects: ['FsWrite'], capabilities: ['fs:write'] },
    });
    await expect(loadManifestTool(declared)).resolves.toMatchObject({ manifest: { name: 'writes' } });
  });

  it('refuses a host call that reads or writes in a tool declared Pure', async () => {
    const pureReader = { tier: 'STANDARD', determinism: 'Pure', sideEffects: ['FsRead'], capabilities: ['fs:read'] };
    await expect(loadManifestTool(writeWasmTool(root, 'pure_reader', importingWat('toolgate', 'read_file'), { manifest: pureReader }))).rejects.toThrow(
      "imports toolgate.read_file, which reads a workspace file, but its manifest declares it Pure: a Pure tool's output depends on its input alone",
    );
  });

  it('refuses, in the tool process, a module that is not the one the gate pinned: another module in its place is never run', async () => {
    const manifestPath = writeWasmTool(root, 'pinned', SPIN_WAT);
    const { module } = await loadPinnedManifestTool(manifestPath);
    await expect(loadManifestTool(module)).resolves.toMatchObject({ manifest: { name: 'pinned' } });
    writeWasmTool(root, 'pinned', '(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) i32.const 0) (func (export "run") (param i32 i32) (result i64) i64.const 0))');
    expect(pinnedModule(manifestPath, { manifest: fileSha256(manifestPath) })).not.toBe(module);
    await expect(loadManifestTool(module)).rejects.toMatchObject({ code: 'EPERMISSION', message: expect.stringContaining('changed since the tool was reviewed') });
  });

  it('refuses a module without the ABI exports', async () => {
    const bare = writeWasmTool(root, 'bare', '(module (memory (export "memory") 1))');
    await expect(loadManifestTool(bare)).rejects.toThrow('does not export the function `alloc` every WASM tool exports');
  });
});

describe('the module file', () => {
  it('refuses a module outside the manifest folder, a missing one and one that does not match its pin', async () => {
    await expect(loadManifestTool(writeWasmTool(root, 'climbs', SPIN_WAT, { source: { module: '../spin/spin.wasm' } }))).rejects.toThrow(
      "source.module must name a file inside the manifest's folder",
    );
    await expect(loadManifestTool(writeWasmTool(root, 'missing', SPIN_WAT, { source: { module: 'nothing.wasm' } }))).rejects.toThrow('could not be read');
    await expect(loadManifestTool(writeWasmTool(root, 'pinned', SPIN_WAT, { source: { sha256: '0'.repeat(64) } }))).rejects.toThrow(
      `not the ${'0'.repeat(64)} its manifest pins; review the new module and update source.sha256`,
    );
  });

  it('refuses budgets past their maximums, naming the field', async () => {
    await expect(loadManifestTool(writeWasmTool(root, 'greedy', SPIN_WAT, { source: { memoryPages: 100_000 } }))).rejects.toThrow('source.memoryPages');
    await expect(loadManifestTool(writeWasmTool(root, 'hungry', SPIN_WAT, { source: { fuel: 1e12 } }))).rejects.toThrow('source.fuel');
  });
});

describe('file host calls', () => {
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, 'docs'), { recursive: true });
  writeFileSync(join(root, 'outside.txt'), 'outside');
  writeFileSync(join(workspace, 'docs/a.txt'), 'inside');
  symlinkSync(join(root, 'outside.txt'), join(workspace, 'docs/link.txt'));
  const files = (input: unknown, dryRun = false) =>
    new WasmFileCalls({ tool: 'test', pathArguments: ['path'], input, context: { workspace, dryRun, callId: 'c' } });

  it('reads inside a named path, and refuses .., a symlink out and a path the arguments do not name', () => {
    expect(Buffer.from(files({ path: 'docs' }).read('docs/a.txt', 1000)).toString()).toBe('inside');
    expect(() => files({ path: 'docs' }).read('../outside.txt', 1000)).toThrow(/outside the workspace/);
    expect(() => files({ path: 'docs' }).read('docs/link.txt', 1000)).toThrow(/resolves through a symlink .* outside the workspace/);
    expect(() => files({ path: 'docs/a.txt' }).read('other.txt', 1000)).toThrow("may reach only the paths its call's arguments name (path)");
  });

  it('writes a named path, and refuses a protected path, a symlink target and any write in a preview', () => {
    expect(files({ path: 'docs' }).write('docs/new.txt', new TextEncoder().encode('made'))).toBe(4);
    expect(() => files({ path: '.' }).write('.git/hooks/pre-commit', new TextEncoder().encode('x'))).toThrow(/rule protected:.git guards .git/);
    expect(() => files({ path: 'docs' }).write('docs/link.txt', new TextEncoder().encode('x'))).toThrow(/symlink/);
    expect(() => files({ path: 'docs' }, true).write('docs/new.txt', new TextEncoder().encode('x'))).toThrow('while only a preview was asked for');
  });
});

describe('the http_fetch host call', () => {
  const net = new WasmNetCalls({ tool: 'test', urlArguments: ['url'], input: { url: 'https://docs.example.org/start' } });

  it('refuses another host, another port of the named host, and a URL that is not http(s), before connecting', () => {
    expect(() => net.fetch('https://evil.example.net/')).toThrow("may fetch only from the hosts and ports its call's arguments name (url)");
    expect(() => net.fetch('https://docs.example.org:8443/')).toThrow('docs.example.org:8443 is not one of them');
    expect(() => net.fetch('http://docs.example.org/')).toThrow('docs.example.org:80 is not one of them');
    expect(() => net.fetch('file:///etc/passwd')).toThrow(/http/);
  });
});
