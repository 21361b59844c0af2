import { Fragment } from 'react';
import { VisibleText } from './VisibleText';

/**
 * A command line (untrusted text) that wraps only between its words: a browser would otherwise end
 * a line after any hyphen, and `--checkpoint-dir` or `long-names` split over two lines reads as two
 * arguments. A word longer than the whole line still wraps inside itself rather than widen the page.
 */
export function CommandLineText({ text }: { text: string }) {
  return (
    <>
      {text.split(' ').map((word, index) => (
        <Fragment key={index}>
          {index > 0 ? ' ' : null}
          <span className="command-word">
            <VisibleText text={word} />
          </span>
        </Fragment>
      ))}
    </>
  );
}
