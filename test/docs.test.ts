/**
 * The README and docs/ are true where they state facts the code holds: every `toolgate` command
 * line they show is one the CLI takes, every link between them lands on a file and a heading, the
 * CLI reference is the one the command specs render, the settings table is the settings schema,
 * the built-in tools are at their manifests' tiers, and the sample serve banner is the real one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMAND_SPECS } from '../main/cli/commandSpecs';
import { BUILTIN_TOOLS } from '../main/tools/builtinTools';
import { MEMORY_TOOLS } from '../main/tools/memory/memoryTools';
import { webSearchTool } from '../main/tools/webSearch/webSearchTool';
import { EnvironmentSecretProvider } from '../main/secrets/secretProvider';
import { CLI_REFERENCE_PATH, cliReference } from '../scripts/cliReference';
import { commandLineProblem, shortCommandLine, toolgateCommandLines } from './docs/commandMentions';
import { codeTexts, docFiles, headingAnchors, linksOf } from './docs/markdown';
import { ROOT, makeTempDirs, spawnServe, type ServeProcess, type TempDirs } from './integration/helpers';
import { settingsTable } from './docs/settingsTable';
import { SettingsFileSchema } from '../main/settings/settings';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('every toolgate command line in the docs', () => {
  it('names a command, subcommand and options the CLI has', () => {
    const problems: string[] = [];
    let lines = 0;
    for (const doc of docFiles()) {
      for (const code of codeTexts(doc.text)) {
        const short = code.inline ? shortCommandLine(code.text, COMMAND_SPECS) : undefined;
        for (const words of short ? [short] : toolgateCommandLines(code.text)) {
          lines += 1;
          const problem = commandLineProblem(words, COMMAND_SPECS);
          if (problem) problems.push(`${doc.path}:${code.line}: ${problem}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(lines, 'command lines found in the docs').toBeGreaterThan(COMMAND_SPECS.length);
  });

  it('is refused when it names an option or subcommand the CLI does not have', () => {
    const [install] = toolgateCommandLines('node /path/to/toolgate/bin/toolgate.js hook install claude-code --projekt DIR   # a typo');
    expect(commandLineProblem(install!, COMMAND_SPECS)).toMatch(/`toolgate hook install` has no option --projekt/);
    const [review] = toolgateCommandLines('echo | toolgate servers reveiw fs --yes');
    expect(commandLineProblem(review!, COMMAND_SPECS)).toMatch(/servers has no subcommand reveiw/);
    expect(toolgateCommandLines('claude mcp add --transport http toolgate http://127.0.0.1:7749/mcp')).toEqual([]);
    expect(commandLineProblem(shortCommandLine('servers review NAME --yess', COMMAND_SPECS)!, COMMAND_SPECS)).toMatch(/has no option --yess/);
    expect(shortCommandLine('audit.db', COMMAND_SPECS)).toBeUndefined();
  });
});

describe('every link between the README and docs/', () => {
  it('reaches a file that exists, and a heading of it', () => {
    const problems: string[] = [];
    for (const doc of docFiles()) {
      for (const link of linksOf(doc.text)) {
        if (/^[a-z]+:/.test(link.target)) continue;
        const [file, anchor] = link.target.split('#') as [string, string | undefined];
        const target = file === '' ? doc.path : normalize(join(dirname(doc.path), file));
        if (!existsSync(join(ROOT, target))) {
          problems.push(`${doc.path}:${link.line}: ${link.target}: there is no ${target}`);
          continue;
        }
        if (anchor !== undefined && !headingAnchors(read(target)).has(anchor)) {
          problems.push(`${doc.path}:${link.line}: ${link.target}: ${target} has no heading #${anchor}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the CLI reference', () => {
  it('is what the command specs render (run npm run docs after changing them)', () => {
    expect(read(CLI_REFERENCE_PATH), `${CLI_REFERENCE_PATH} is out of date: run npm run docs`).toBe(cliReference(COMMAND_SPECS));
  });

  it('shows every command and subcommand', () => {
    const reference = read(CLI_REFERENCE_PATH);
    for (const spec of COMMAND_SPECS) {
      for (const words of spec.subcommands ? spec.subcommands.map((sub) => `${spec.name} ${sub.name}`) : [spec.name]) {
        expect(reference, words).toContain(`## toolgate ${words}\n`);
      }
    }
  });
});

describe('docs/settings.md', () => {
  const schema = z.toJSONSchema(SettingsFileSchema, { unrepresentable: 'any' }) as { properties: Record<string, { type?: string; enum?: string[]; minimum?: number; maximum?: number }> };
  const table = settingsTable(read('docs/settings.md'));

  it('lists every setting once, in the order the console shows them, with its serve option and default', () => {
    expect(table.rows.map((row) => row.key)).toEqual(table.expected.map((row) => row.key));
    for (const [index, row] of table.rows.entries()) {
      const expected = table.expected[index]!;
      expect(row.option, `${row.key}: its option`).toBe(expected.option);
      if (expected.defaultCell === undefined) expect(row.defaultCell, `${row.key}: its default`).toMatch(/^the folder the gate is started in/);
      else expect(row.defaultCell, `${row.key}: its default`).toBe(expected.defaultCell);
    }
  });

  it("gives each setting the values the schema takes", () => {
    for (const row of table.rows) {
      const property = schema.properties[row.key]!;
      if (property.enum) expect([...row.values.matchAll(/"([^"]+)"/g)].map((match) => match[1]), row.key).toEqual(property.enum);
      else if (property.type === 'integer') expect(row.values, row.key).toContain(`${property.minimum}–${property.maximum}`);
      else if (property.type === 'boolean') expect(row.values, row.key).toBe('`true` or `false`');
      else if (property.type === 'array') expect(row.values, row.key).toMatch(/^a list of /);
      else if (property.type === 'object') expect(row.values, row.key).toMatch(/^an object of /);
      else expect(row.values, row.key).toMatch(/^an? (?!list |object )/);
    }
  });

  it('shows only settings files the gate accepts', () => {
    const examples = [...read('docs/settings.md').matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as unknown);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(SettingsFileSchema.safeParse(example).error?.issues ?? []).toEqual([]);
  });
});

describe("the README's quick start", () => {
  it('gives the two commands, and CI runs the test one', () => {
    const readme = read('README.md');
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    const commands = /```sh\n([\s\S]*?)```/.exec(quickStart)![1]!.split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, '').trim());
    expect(commands).toEqual(['npm install && npm start', 'npm test']);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start && scripts.test, 'package.json has start and test scripts').toBeTruthy();
    expect(read('.ci/run').split('\n').some((line) => /^npm test\b/.test(line.trim())), '.ci/run runs npm test').toBe(true);
  });

  it('stays a page a newcomer reads: at most 250 lines, the reference in docs/', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('the built-in tools and the Node version', () => {
  it('docs/tools.md lists every built-in tool once, at the tier its manifest declares', () => {
    const rows = [...read('docs/tools.md').matchAll(/^\| `([a-z_]+)` \| (SAFE|STANDARD|ELEVATED|RESTRICTED|DANGEROUS) \|/gm)].map((match) => [match[1], match[2]]);
    // The tools the gate serves itself are built-ins too: the memory tools, and web_search once a provider is set.
    const served = [...MEMORY_TOOLS.map(({ tool }) => tool), webSearchTool({ settings: { provider: 'searxng', url: 'https://searx.example/search' }, secrets: new EnvironmentSecretProvider({}), otherTools: () => [] }).tool];
    const tools = [...BUILTIN_TOOLS, ...served].map((tool) => [tool.manifest.name, tool.manifest.tier]);
    expect(rows.sort()).toEqual(tools.sort());
  });

  it('the README names the Node version package.json requires', () => {
    // `^22.16.0 || >=24`: the README names the lowest.
    const minimum = /^(?:>=|\^)(\d+\.\d+)/.exec((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node)?.[1];
    expect(minimum).toBeDefined();
    expect(read('README.md')).toContain(`Node ${minimum}`);
  });
});

describe("the README's sample serve banner", () => {
  let dirs: TempDirs;
  let serve: ServeProcess;

  beforeAll(async () => {
    dirs = makeTempDirs();
    serve = await spawnServe(dirs);
  });

  afterAll(async () => {
    await serve?.stop();
    dirs?.remove();
  });

  it('is the banner serve prints, line for line, but for this machine’s folders, port, token and bubblewrap version', () => {
    const bannerOf = (text: string) => text.slice(text.indexOf('Toolgate '), text.indexOf('Press Ctrl+C to stop.') + 'Press Ctrl+C to stop.'.length).split('\n');
    const readme = read('README.md');
    const sample = bannerOf(readme.slice(readme.indexOf('```\nToolgate ')));
    const sampleBwrap = /bubblewrap \((\d+\.\d+(?:\.\d+)?)\)/.exec(sample.join('\n'))?.[1];
    const realBwrap = /\d+\.\d+(\.\d+)?/.exec(execFileSync('bwrap', ['--version'], { encoding: 'utf8' }))![0];
    expect(sampleBwrap, 'the sample names a bubblewrap version').toBeDefined();
    let real = serve.stdout();
    for (const [path, shown] of [
      [realpathSync(dirs.home), '/home/me/.toolgate'],
      [dirs.home, '/home/me/.toolgate'],
      [realpathSync(dirs.workspace), '/home/me/code/my-project'],
      [dirs.workspace, '/home/me/code/my-project'],
    ] as const) real = real.split(path).join(shown);
    real = real
      .replace(`127.0.0.1:${serve.port}/`, '127.0.0.1:7749/')
      .replace(`127.0.0.1:${serve.port}/`, '127.0.0.1:7749/')
      .replace(/#token=[0-9a-f]+/, '#token=…')
      .replace(`bubblewrap (${realBwrap})`, `bubblewrap (${sampleBwrap})`);
    expect(sample).toEqual(bannerOf(real));
  });
});
