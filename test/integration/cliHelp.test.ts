/**
 * The CLI behaves like one: every command and subcommand answers --help with every option it
 * takes, a wrong option points to that help, `toolgate console` prints the console link again,
 * `toolgate call` says where the person answers, and `toolgate mcp` without a gate answers the
 * client's initialize with what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../main/cli/commandSpecs';
import type { CommandSpec } from '../../main/cli/commandSpec';
import { runCliHere } from './cliHere';
import type { CliRun } from './cliProcesses';
import { connectStdioBridge, makeTempDirs, readConsoleToken, runCli, spawnServe, type ServeProcess, type TempDirs } from './helpers';

/** Every command line that has a help of its own: `serve`, `audit verify`, … */
const HELP_PATHS: { path: string[]; spec: CommandSpec }[] = COMMAND_SPECS.flatMap((spec) => [
  { path: [spec.name], spec },
  ...(spec.subcommands ?? []).map((sub) => ({ path: [spec.name, sub.name], spec: sub })),
]);

describe('toolgate --help', () => {
  let dirs: TempDirs;
  beforeAll(() => {
    dirs = makeTempDirs();
  });
  afterAll(() => dirs.remove());

  /** What a help must hold: its usage line, every option and every subcommand. */
  function expectFullHelp(run: CliRun, path: string[], spec: CommandSpec, asked: string[]): void {
    expect(run.code, `${asked.join(' ')}: ${run.stderr}`).toBe(0);
    expect(run.stdout).toContain(`Usage: toolgate ${path.join(' ')}`);
    for (const option of spec.options ?? []) expect(run.stdout).toContain(`--${option.name}`);
    for (const sub of spec.subcommands ?? []) expect(run.stdout).toContain(sub.name);
  }

  // In this process, through the CLI's own main(): a Node process for each would take a minute.
  it.each(HELP_PATHS.map(({ path, spec }) => [path.join(' '), path, spec] as const))('`toolgate %s --help`, -h and `help` list every option and exit 0', async (_, path, spec) => {
    for (const asked of [[...path, '--help'], [...path, '-h'], ['help', ...path]]) expectFullHelp(await runCliHere(asked, dirs.home), path, spec, asked);
  });

  // And the built CLI as a person runs it, once for each spelling of help.
  const [serve, auditVerify] = [HELP_PATHS.find((entry) => entry.path.join(' ') === 'serve')!, HELP_PATHS.find((entry) => entry.path.join(' ') === 'audit verify')!];
  it.each([
    ['serve --help', serve, [...serve.path, '--help']],
    ['audit verify -h', auditVerify, [...auditVerify.path, '-h']],
    ['help audit verify', auditVerify, ['help', ...auditVerify.path]],
  ] as const)('the built `toolgate %s` prints the same full help', async (_, { path, spec }, asked) => {
    expectFullHelp(await runCli([...asked], dirs.home), path, spec, [...asked]);
  });

  it('--help wins over a missing value (`toolgate call --help` used to say "--help needs a value")', async () => {
    const run = await runCliHere(['call', 'write_file', '--help'], dirs.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: toolgate call TOOL [JSON]');
  });

  it('a mistyped command or subcommand exits 2 and names the one meant; the word is never ignored', async () => {
    const command = await runCliHere(['serv'], dirs.home);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "serv"; did you mean `toolgate serve`?');
    const sub = await runCliHere(['audit', 'verfy'], dirs.home);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown subcommand "verfy"; did you mean `toolgate audit verify`?');
    // `tools list` printed every schema and exit 0, as if the word were not there.
    const ignored = await runCliHere(['tools', 'list'], dirs.home);
    expect(ignored.code).toBe(2);
    expect(ignored.stdout).toBe('');
    expect(ignored.stderr).toContain('unknown subcommand "list" (it takes `review`');
    // A command that also runs bare is listed bare in the overview.
    expect((await runCliHere(['--help'], dirs.home)).stdout).toMatch(/^ {2}tools {3,}print the tool schemas/m);
  });

  it('a wrong option exits 2 naming it and the help to read', async () => {
    const run = await runCliHere(['audit', 'list', '--limt', '5'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option --limt');
    expect(run.stderr).toContain('toolgate audit list --help');
    // A wrong value a subcommand checks itself points to that subcommand's help too.
    const value = await runCliHere(['audit', 'export', '--outcome', 'bogus'], dirs.home);
    expect(value.code).toBe(2);
    expect(value.stderr).toContain('--outcome takes');
    expect(value.stderr).toContain('(see `toolgate audit export --help`)');
  });

  it('`toolgate mcp` with no gate running answers the client\'s initialize with an error saying to start the gate', async () => {
    const failure = await connectStdioBridge(dirs.home).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toContain('Toolgate is not running: start it with `toolgate serve --workspace DIR`');
  });

  it('`toolgate console` without a gate exits 2 and says to start one', async () => {
    const run = await runCliHere(['console'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no gate is running');
  });
});

describe('with a gate running', () => {
  let dirs: TempDirs;
  let serve: ServeProcess;
  beforeAll(async () => {
    dirs = makeTempDirs();
    serve = await spawnServe(dirs, ['--approval-timeout', '3']);
  });
  afterAll(async () => {
    await serve?.stop();
    dirs?.remove();
  });

  it('`toolgate console` prints the console URL with the console token, as serve printed it', async () => {
    const run = await runCli(['console'], dirs.home);
    expect(run.code, run.stderr).toBe(0);
    const printed = /console\s+(\S+)/.exec(serve.stdout())?.[1];
    expect(run.stdout.trim()).toBe(printed);
    expect(run.stdout.trim()).toMatch(new RegExp(`#token=${readConsoleToken(dirs.home)}$`));
  });

  it('`toolgate call` of a call that waits for approval says so and where the console is', async () => {
    const run = await runCli(['call', 'write_file', '{"path":"a.txt","content":"hi"}'], dirs.home);
    const consoleUrl = /console\s+(\S+)/.exec(serve.stdout())![1]!.replace(/#.*$/, '');
    expect(run.stderr).toContain('write_file is waiting in the gate');
    expect(run.stderr).toContain(`answer it in the console at ${consoleUrl}`);
    expect(run.stderr).toContain('toolgate console');
    // Nobody answered within the gate's 3 s: denied, exit 1.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('EDENIED');
  });
});
