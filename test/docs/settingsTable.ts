/**
 * docs/settings.md's table of every setting, beside what the code says of each: the `toolgate
 * serve` option that sets it (found by giving every option to settingsFromFlags) and its default.
 */
import { parseCommandLine } from '../../main/cli/commandSpec';
import { SERVE_SPEC } from '../../main/cli/commandSpecs';
import { launchDefaults, settingsFromFlags } from '../../main/settings/launchSettings';
import { SETTING_KEYS } from '../../shared/settings';

/** One row of the doc's table, its cells as written (code spans keep their backticks). */
export interface SettingRow {
  key: string;
  option: string;
  values: string;
  defaultCell: string;
}

/** A value the option parser accepts for an option's placeholder, to see which setting it sets. */
function sampleValue(placeholder: string): string {
  if (placeholder.includes('|')) return placeholder.split('|')[0]!;
  const samples: Record<string, string> = { N: '5', SEC: '5', DIR: '/tmp', CAP: 'net:read:example.com', MODULE: '/tmp/tools.mjs', NAME: 'GITHUB_TOKEN', URL: 'nats://127.0.0.1:4222', FILE: '/tmp/team.json' };
  const sample = samples[placeholder];
  if (sample === undefined) throw new Error(`no sample value for the serve option placeholder ${placeholder}: add one`);
  return sample;
}

/** The settings key each serve option sets, by giving it to settingsFromFlags. */
function optionOfEachSetting(): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const option of SERVE_SPEC.options ?? []) {
    const argv = option.value ? [`--${option.name}`, sampleValue(option.value)] : [`--${option.name}`];
    for (const key of Object.keys(settingsFromFlags(parseCommandLine(SERVE_SPEC, argv, 'serve'), '/'))) {
      byKey.set(key, `\`--${option.name}${option.value ? ` ${option.value}` : ''}\``);
    }
  }
  return byKey;
}

/** The cells of a Markdown table row, `\|` kept as a `|` inside a cell. */
function cells(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|\s*$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The doc's rows and the rows the code gives (a default of undefined: the folder the gate starts in). */
export function settingsTable(doc: string): { rows: SettingRow[]; expected: { key: string; option: string; defaultCell: string | undefined }[] } {
  const rows = doc
    .split('\n')
    .filter((line) => /^\| `[a-zA-Z]+` \|/.test(line))
    .map((line) => {
      const [key, option, values, defaultCell] = cells(line);
      return { key: key!.replace(/`/g, ''), option: option!, values: values!, defaultCell: defaultCell! };
    });
  const options = optionOfEachSetting();
  const defaults = launchDefaults('/the/folder/it/starts/in') as unknown as Record<string, unknown>;
  const expected = SETTING_KEYS.map((key) => ({
    key,
    option: options.get(key) ?? '—',
    defaultCell: defaults[key] === '/the/folder/it/starts/in' ? undefined : defaults[key] === null ? 'none' : `\`${JSON.stringify(defaults[key])}\``,
  }));
  return { rows, expected };
}
