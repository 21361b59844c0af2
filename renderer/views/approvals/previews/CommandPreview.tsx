import type { CommandPreview as CommandPreviewData, SubCommand } from '../../../../shared/commandPreview';
import { VisibleText } from '../../common/VisibleText';
import { RiskFlagBadges } from './RiskFlagBadges';
import { SubCommandItem } from './SubCommandItem';
import { countOf } from '../../../../shared/plural';

/** A command line longer than this is folded below the summary and the sub-commands. */
const FOLDED_LINE_CHARS = 2_000;
/** Programs named in the summary; more are counted. */
const SUMMARY_PROGRAMS = 20;

/** The program a sub-command runs, as the summary names it. */
function programOf(command: SubCommand): string | undefined {
  return command.program ?? command.argv.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(word));
}

/**
 * A command line as the shell grammar read it. The risks lead, then a summary (how many
 * sub-commands, which programs), then every sub-command; the raw line, when long, comes folded
 * last, so that nothing dangerous hides behind 60 KB of harmless text.
 */
export function CommandPreview({ preview }: { preview: CommandPreviewData }) {
  const programs = [...new Set(preview.commands.map(programOf).filter((program): program is string => program !== undefined))];
  const shown = programs.slice(0, SUMMARY_PROGRAMS);
  const long = preview.command.length > FOLDED_LINE_CHARS;
  const line = (
    <pre className="command-line" data-testid="command-line">
      <VisibleText text={preview.command} />
    </pre>
  );
  return (
    <section className="preview preview-command" aria-label="Preview">
      <h4>
        Command in <VisibleText text={preview.cwd || '.'} />
      </h4>
      <RiskFlagBadges flags={preview.flags} />
      <p className="command-summary" data-testid="command-summary">
        {countOf(preview.commands.length, 'sub-command')}
        {shown.length > 0 ? (
          <>
            {' '}
            running <VisibleText text={shown.join(', ')} />
            {programs.length > shown.length ? ` and ${countOf(programs.length - shown.length, 'more program')}` : ''}
          </>
        ) : null}
        {long ? ` · ${countOf(preview.command.length, 'character', { grouped: true })}` : ''}
      </p>
      {long ? null : line}
      <ol className="sub-commands" data-testid="sub-commands">
        {preview.commands.map((command, index) => (
          <SubCommandItem key={index} command={command} />
        ))}
      </ol>
      {long ? (
        <details className="folded-command-line">
          <summary>The whole command line ({preview.command.length.toLocaleString('en')} characters)</summary>
          {line}
        </details>
      ) : null}
    </section>
  );
}
