/**
 * Subprocess and HTTP manifest sources, the tools home's judgement of its manifests, and output
 * schemas, in process: the argument templates, the URL template, the grant check of an HTTP tool's
 * endpoint, the pins and the checks of a result against its declared schema.
 */
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCapabilities } from '../../../main/executor/steps/checkCapabilities';
import { callParts } from '../../../main/policy/callParts';
import { matcherKindOf } from '../../../main/policy/compiledRule';
import { StepFailure } from '../../../main/executor/steps/stepFailure';
import { requestUrl } from '../../../main/tools/sources/httpSource';
import { readManifestTool } from '../../../main/tools/sources/manifestFile';
import { parseOutput, programArguments } from '../../../main/tools/sources/subprocessSource';
import { fileSha256 } from '../../../main/tools/sources/sourcePins';
import { scanToolsHome } from '../../../main/tools/sources/toolsHome';
import { saveToolPin } from '../../../main/tools/sources/toolReviews';
import { startToolsHome } from '../../../main/tools/sources/toolsHomeWatch';
import { ToolRegistry } from '../../../main/registry/registry';
import { resultValidator } from '../../../main/upstream/inputValidation';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolgate-sources-'));
});

afterEach(() => rmSync(folder, { recursive: true, force: true }));

function writeManifest(name: string, fields: Record<string, unknown>, into = folder): string {
  const path = join(into, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, description: 'a test tool', tier: 'SAFE', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, ...fields }));
  return path;
}

describe('subprocess argument templates', () => {
  it('keep each field in its one argument, whatever shell syntax it holds', () => {
    const hostile = '; rm -rf ~ $(id) `id` && "x" \'y\' > /tmp/z';
    expect(programArguments(['-c', '{{q}}', 'pre-{{q}}-post'], { q: hostile })).toEqual(['-c', hostile, `pre-${hostile}-post`]);
  });

  it('refuse a whole-argument field that starts with - before any --, and take it after --', () => {
    expect(() => programArguments(['{{q}}'], { q: '--output=/etc/passwd' })).toThrow(/which the program would read as an option/);
    expect(programArguments(['--', '{{q}}'], { q: '--output=x' })).toEqual(['--', '--output=x']);
  });
});

describe('subprocess output', () => {
  it('is read as declared: text, one JSON value, or JSON lines; output that is not what it says is a clear error', () => {
    expect(parseOutput('hi\n', 'text', 't')).toEqual({ text: 'hi\n' });
    expect(parseOutput('{"a":1}\n', 'json', 't')).toEqual({ a: 1 });
    expect(parseOutput('{"a":1}\n\n[2]\n', 'jsonl', 't')).toEqual({ items: [{ a: 1 }, [2]] });
    expect(() => parseOutput('{"a":1}\nnot json\n', 'jsonl', 't')).toThrow(/t declares JSON output, but line 2 of its output is not JSON/);
  });
});

describe('HTTP URL templates', () => {
  it('encode each field as one component, so no field reaches another host or path', () => {
    const url = new URL(requestUrl('https://api.example.com/v1/items/{{q}}?tag={{q}}', { q: '@evil.example/../x?y#z' }));
    expect(url.host).toBe('api.example.com');
    expect(url.pathname).toBe(`/v1/items/${encodeURIComponent('@evil.example/../x?y#z')}`);
    expect(() => requestUrl('https://api.example.com/v1/{{q}}/x', { q: '..' })).toThrow(/would climb the endpoint's path/);
  });

  it('refuse a manifest whose host comes from a field', async () => {
    const path = writeManifest('moving', {
      sideEffects: ['NetRead'],
      capabilities: ['net:read'],
      source: { kind: 'http', url: 'https://{{q}}.example.com/v1' },
    });
    await expect(readManifestTool(path)).rejects.toThrow(/puts \{\{…\}\} in its scheme, host or port/);
  });

  it('check the endpoint against the net grants: refused ungranted, admitted by a grant of its host and port', async () => {
    const path = writeManifest('api', {
      sideEffects: ['NetRead'],
      capabilities: ['net:read'],
      source: { kind: 'http', url: 'http://127.0.0.1:8123/v1/{{q}}' },
    });
    const { manifest } = (await readManifestTool(path)).tool;
    const refused = checkCapabilities(manifest, { q: 'x' }, ['fs:read', 'net:read'], folder);
    expect(refused).toBeInstanceOf(StepFailure);
    expect((refused as StepFailure).error.message).toContain('--grant net:read:127.0.0.1:8123');
    expect(checkCapabilities(manifest, { q: 'x' }, ['net:read:127.0.0.1:8123'], folder)).not.toBeInstanceOf(StepFailure);
  });

  it('give host rules the endpoint to judge, as a URL argument', async () => {
    const path = writeManifest('api', { sideEffects: ['NetRead'], capabilities: ['net:read'], source: { kind: 'http', url: 'https://api.example.com/v1/{{q}}' } });
    const { manifest } = (await readManifestTool(path)).tool;
    expect(matcherKindOf(manifest)).toBe('host');
    expect(callParts(manifest, { q: 'x' }, {}, { workspace: folder, home: folder }).urls).toEqual(['https://api.example.com/']);
  });
});

describe('declared output schemas', () => {
  it("hold a manifest tool's output to its outputSchema", async () => {
    const path = writeManifest('counted', {
      sideEffects: ['ProcessSpawn'],
      outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
      source: { kind: 'subprocess', command: '/usr/bin/printf', args: ['{{q}}'], output: 'json' },
    });
    const { tool } = await readManifestTool(path);
    expect(tool.output.safeParse({ count: 'many' }).success).toBe(false);
    expect(tool.output.safeParse({ count: 3 }).success).toBe(true);
  });

  it("hold an upstream tool's structuredContent to the outputSchema it declares", () => {
    const check = resultValidator({ name: 'count', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { count: { type: 'number' } } } });
    expect(check({ count: 'many' })).toBe('/count: must be number');
    expect(check({ count: 3 })).toBeUndefined();
  });
});

describe('the tools home', () => {
  it('holds a manifest never reviewed, trusts it as reviewed, and names what changed since', async () => {
    const home = join(folder, 'home');
    mkdirSync(join(home, 'tools'), { recursive: true });
    const program = join(folder, 'program');
    copyFileSync('/usr/bin/printf', program);
    chmodSync(program, 0o755);
    const path = writeManifest('say', { sideEffects: ['ProcessSpawn'], source: { kind: 'subprocess', command: program, args: ['{{q}}'] } }, join(home, 'tools'));
    const [unreviewed] = await scanToolsHome(home);
    expect(unreviewed).toMatchObject({ state: 'unreviewed', refusal: expect.stringContaining('toolgate tools review say') });

    saveToolPin(home, { name: 'say', manifestPath: path, manifestSha256: fileSha256(path), codeFile: program, codeSha256: fileSha256(program), reviewedAt: new Date().toISOString() });
    expect((await scanToolsHome(home))[0]).toMatchObject({ state: 'trusted', module: expect.stringContaining(`${path}#manifest=`) });

    appendFileSync(program, 'changed');
    const [changed] = await scanToolsHome(home);
    expect(changed).toMatchObject({ state: 'changed', refusal: expect.stringContaining(`its program ${program} changed`) });
  });

  it('shows tool processes the tools folder and a trusted program, never a file of the state folder a symlink leads to', async () => {
    const home = join(folder, 'home');
    mkdirSync(join(home, 'tools'), { recursive: true });
    // "Its program" is the state folder's own file, reached through a symlink outside it.
    const inside = join(home, 'secrets-like');
    copyFileSync('/usr/bin/printf', inside);
    chmodSync(inside, 0o755);
    const link = join(folder, 'innocent-program');
    symlinkSync(inside, link);
    const path = writeManifest('sneaky', { sideEffects: ['ProcessSpawn'], source: { kind: 'subprocess', command: link, args: ['{{q}}'] } }, join(home, 'tools'));
    saveToolPin(home, { name: 'sneaky', manifestPath: path, manifestSha256: fileSha256(path), codeFile: link, codeSha256: fileSha256(link), reviewedAt: new Date().toISOString() });
    const sandboxReadable: string[] = [];
    const running = await startToolsHome({ home, registry: new ToolRegistry(), sandboxReadable });
    running.close();
    expect(sandboxReadable).toEqual([join(home, 'tools')]);
  });
});
