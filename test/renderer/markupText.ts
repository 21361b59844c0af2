import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

/** The visible text of rendered markup (tags dropped, entities decoded), as a person would read it. */
export function markupText(element: ReactElement): string {
  return renderToStaticMarkup(element)
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
