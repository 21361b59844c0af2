/**
 * `toolgate audit export` as a person runs it (node bin/toolgate.js, a child process) over a real
 * gate's log: the explorer's filters, OTLP to stdout, JSONL to a file, --help, and exit 2 with a
 * clear message for a bad format, time or search, or a state folder with no log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedCalls, SECRET_CONTENT, type GatedCalls } from '../audit/exportFixture';
import { attributeMap, otlpProblems } from '../audit/otlpShape';
import { runCliHere } from './cliHere';
import { runCli } from './cliProcesses';
import { makeTempDirs } from './helpers';

let gated: GatedCalls;

beforeAll(async () => {
  gated = await gatedCalls();
});

afterAll(async () => {
  await gated?.close();
});

describe('toolgate audit export (CLI)', () => {
  it('streams the filtered calls as OTLP JSON to stdout, exit 0', async () => {
    const run = await runCli(['audit', 'export', '--format', 'otlp', '--tool', 'write_file', '--decider', 'timeout'], gated.dirs.home);
    expect(run.stderr).toBe('exported 1 call as OTLP JSON\n');
    expect(run.code).toBe(0);
    const request = JSON.parse(run.stdout);
    expect(otlpProblems(request)).toEqual([]);
    const [span] = request.resourceSpans[0].scopeSpans[0].spans;
    expect(attributeMap(span.attributes)).toMatchObject({ 'gen_ai.tool.call.id': gated.ids.timedOut, 'toolgate.decider': 'timeout', 'error.type': 'EDENIED' });
    expect(run.stdout).not.toContain(SECRET_CONTENT.slice(0, 12));
  });

  it('writes JSONL with content to --out, and nothing to stdout', async () => {
    const file = join(gated.dirs.outside, 'calls.jsonl');
    const run = await runCliHere(['audit', 'export', '--outcome', 'completed', '--content', '--out', file], gated.dirs.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.callId)).toEqual([gated.ids.completed]);
    expect(lines[0].result.content).toBe(`${SECRET_CONTENT}\n`);
  });

  it('lists its filters in --help', async () => {
    const run = await runCliHere(['audit', 'export', '--help'], gated.dirs.home);
    expect(run.code).toBe(0);
    for (const option of ['--format jsonl|otlp', '--tool NAME', '--outcome', '--decider', '--session', '--tier', '--from TIME', '--to TIME', '--search TEXT', '--call ID', '--content', '--out FILE']) {
      expect(run.stdout).toContain(option);
    }
  });

  it.each([
    [['--format', 'xml'], '--format takes jsonl or otlp, not "xml"'],
    [['--to', '31/12/2026'], '--to takes an ISO 8601 time such as 2026-11-23 or 2026-11-23T14:05:00Z, not "31/12/2026"'],
    [['--search', 'a'], '--search needs at least 3 characters'],
  ])('exits 2 on %j saying what to give instead', async (argv, message) => {
    const run = await runCliHere(['audit', 'export', ...argv], gated.dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('exits 2 when the state folder has no log', async () => {
    const empty = makeTempDirs();
    try {
      const run = await runCliHere(['audit', 'export'], empty.home);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('no audit log at');
    } finally {
      empty.remove();
    }
  });
});
