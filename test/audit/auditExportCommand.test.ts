/**
 * `toolgate audit export` in this process over a real gate's log: the filters it takes (as the
 * explorer's), the format, content on and off, stdout or an atomically written file, and the
 * clear refusal (exit 2) of a bad format, time or search.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExplorerFilter } from '../../shared/explorer';
import { iterateCalls } from '../../main/audit/explorerQuery';
import { UsageError } from '../../main/cli/argv';
import type { CallSource } from '../../main/audit/exportCalls';
import { auditExportCommand } from '../../main/cli/auditExport';
import { parseCommandLine, subcommandOf } from '../../main/cli/commandSpec';
import { commandSpec } from '../../main/cli/commandSpecs';
import { gatedCalls, SECRET_CONTENT, type GatedCalls } from './exportFixture';
import { otlpProblems } from './otlpShape';

let gated: GatedCalls;
let lastFilter: ExplorerFilter | undefined;

/** The explorer's query, noting the filter it was given. */
const source: CallSource = (store, filter) => {
  lastFilter = filter;
  return iterateCalls(store, filter);
};

async function runExport(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const all = ['export', ...argv];
  const args = parseCommandLine(subcommandOf(commandSpec('audit'), all)!, all, 'audit export');
  let stdout = '';
  let stderr = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      stdout += String(chunk);
      done();
    },
  });
  const code = await auditExportCommand(args, { out: () => true, err: (text) => void (stderr += text), home: gated.dirs.home }, { calls: source, stdout: sink });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  gated = await gatedCalls();
});

afterAll(async () => {
  await gated?.close();
});

describe('toolgate audit export', () => {
  it('writes JSONL of every call to stdout by default, newest first, without content', async () => {
    const { code, stdout, stderr } = await runExport([]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.callId)).toEqual([gated.ids.failed, gated.ids.timedOut, gated.ids.denied, gated.ids.completed]);
    expect(stdout).not.toContain(SECRET_CONTENT.slice(0, 12));
    expect(stderr).toBe('exported 4 calls as JSONL\n');
  });

  it('hands the explorer filter over as the console builds it', async () => {
    const { code } = await runExport(['--tool', 'write_file', '--outcome', 'rejected,failed', '--decider', 'rule', '--tier', 'elevated', '--session', 's1', '--from', '2026-01-01', '--to', '2030-01-01T00:00:00Z', '--search', 'plan', '--format', 'jsonl']);
    expect(code).toBe(0);
    expect(lastFilter).toEqual({
      tool: ['write_file'],
      outcome: ['rejected', 'failed'],
      decider: ['rule'],
      tier: ['ELEVATED'],
      session: ['s1'],
      from: '2026-01-01T00:00:00.000Z',
      to: '2030-01-01T00:00:00.000Z',
      text: 'plan',
    });
  });

  it.each([
    ['--tool write_file --outcome rejected', ['timedOut', 'denied']],
    ['--decider timeout', ['timedOut']],
    ['--outcome failed,completed', ['failed', 'completed']],
    ['--search missing-confidential', ['failed']],
    ['--tier STANDARD', ['failed', 'completed']],
    ['--from 2000-01-01 --to 2001-01-01', []],
  ] as const)('exports only the calls %s matches', async (line, expected) => {
    const { code, stdout, stderr } = await runExport(line.split(' '));
    expect(code).toBe(0);
    expect(stdout === '' ? [] : stdout.trimEnd().split('\n').map((json) => JSON.parse(json).callId)).toEqual(expected.map((name) => gated.ids[name]));
    expect(stderr).toBe(`exported ${expected.length} ${expected.length === 1 ? 'call' : 'calls'} as JSONL\n`);
  });

  it('exports one call by id', async () => {
    const { stdout } = await runExport(['--call', gated.ids.denied, '--format', 'otlp']);
    const spans = JSON.parse(stdout).resourceSpans[0].scopeSpans[0].spans;
    expect(spans.map((span: { name: string }) => span.name)).toEqual(['execute_tool write_file']);
  });

  it('writes OTLP JSON with content to a file, replacing it only once complete', async () => {
    const file = join(gated.dirs.outside, 'calls.otlp.json');
    const { code, stdout, stderr } = await runExport(['--format', 'otlp', '--content', '--call', gated.ids.completed, '--out', file]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toBe(`exported 1 call as OTLP JSON with arguments and results to ${file}\n`);
    const request = JSON.parse(readFileSync(file, 'utf8'));
    expect(otlpProblems(request)).toEqual([]);
    expect(JSON.stringify(request)).toContain(SECRET_CONTENT);
    expect(readdirSync(gated.dirs.outside).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it.each([
    [['--format', 'csv'], /--format takes jsonl or otlp, not "csv"/],
    [['--from', 'yesterday'], /--from takes an ISO 8601 time/],
    [['--search', 'ab'], /--search needs at least 3 characters/],
    [['--outcome', 'done'], /--outcome takes completed, failed, rejected, interrupted, open, not "done"/],
    [['--tier', 'HIGH'], /--tier takes SAFE, STANDARD, ELEVATED, RESTRICTED, DANGEROUS, not "HIGH"/],
    [['--from', '2026-02-01', '--to', '2026-01-01'], /--from .* must be before --to/],
    [['--out', '/no/such/folder/calls.jsonl'], /the folder \/no\/such\/folder does not exist/],
    [['--colour', 'red'], /unknown option --colour/],
  ])('refuses %j with a message saying what to give instead', async (argv, message) => {
    await expect(runExport(argv)).rejects.toThrow(UsageError);
    await expect(runExport(argv)).rejects.toThrow(message);
  });

  it('leaves no file behind when the export cannot be written', async () => {
    const file = join(gated.dirs.outside, 'broken.jsonl');
    // Fails after the first call is written: a half-written export must not take the file's place.
    const failing: CallSource = function* (store, filter) {
      yield* [...source(store, filter)].slice(0, 1);
      throw new Error('the log could not be read');
    };
    const all = ['export', '--out', file];
    const args = parseCommandLine(subcommandOf(commandSpec('audit'), all)!, all, 'audit export');
    await expect(auditExportCommand(args, { out: () => true, err: () => true, home: gated.dirs.home }, { calls: failing, stdout: new Writable() })).rejects.toThrow('could not be read');
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(gated.dirs.outside).filter((name) => name.includes('broken'))).toEqual([]);
  });
});
