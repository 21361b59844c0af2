import type { Preview } from '../../../../shared/approval';
import { VisibleText } from '../../common/VisibleText';

type CommandPreviewData = Extract<Preview, { kind: 'command' }>;

/** A command line as the shell grammar read it: every sub-command, what joins them, redirections, substitutions. */
export function CommandPreview({ preview }: { preview: CommandPreviewData }) {
  return (
    <section className="preview preview-command" aria-label="Preview">
      <h4>
        Command in <VisibleText text={preview.cwd || '.'} />
      </h4>
      <pre className="command-line" data-testid="command-line">
        <VisibleText text={preview.command} />
      </pre>
      <ol className="sub-commands" data-testid="sub-commands">
        {preview.commands.map((command, index) => (
          <li key={index} data-nested={command.nested ? 'true' : 'false'}>
            <code>
              {command.argv.map((word, at) => (
                <span key={at} className={at === 0 ? 'program' : 'argument'}>
                  <VisibleText text={word} />{' '}
                </span>
              ))}
            </code>
            {command.redirects.map((redirect, at) => (
              <span key={`r${at}`} className="marker redirect">
                {redirect.op} <VisibleText text={redirect.target} />
              </span>
            ))}
            {command.substitutions.map((substitution, at) => (
              <span key={`s${at}`} className="marker substitution">
                runs <VisibleText text={substitution} />
              </span>
            ))}
            {command.nested ? <span className="marker nested">nested</span> : null}
            {command.connector ? <span className="marker connector">{command.connector}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
