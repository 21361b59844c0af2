import type { Page } from '@playwright/test';

// The layout checks of every console list that holds names an agent, a tool or a server chose: no
// identifier broken mid-word, no cell over its neighbour, nothing cut off without its full text in
// a title, no sideways page scroll. The specs run them at each of LAYOUT_WIDTHS, in both themes.

/** The window widths every list must lay out in: the narrowest the console promises, and a wide one. */
export const LAYOUT_WIDTHS = [900, 1400] as const;

/** The console's themes, as the Theme setting names them. */
export const THEMES = ['light', 'dark'] as const;

/** What to check on a page. */
export interface LayoutChecks {
  /** Elements holding one identifier each: they stay on one line, whole or titled. */
  identifiers: readonly string[];
  /** Elements holding phrases of names: they may wrap between words, never inside one. */
  phrases: readonly string[];
  /** Identifiers that must stay in view, never cut to an ellipsis. */
  neverClipped?: readonly string[];
}

/** What the page finds wrong with the layout of the given identifiers and phrases, one line per fault. */
export function layoutFaults(page: Page, { identifiers: selectors, phrases, neverClipped = [] }: LayoutChecks): Promise<string[]> {
  // The e2e code is typed without the DOM library, so the check runs as page source.
  return page.evaluate(`((selectors, phrases, neverClipped) => {
    const faults = [];
    const label = (el) => (el.getAttribute('data-testid') || el.className || el.tagName) + ' "' + el.textContent.trim().slice(0, 60) + '"';
    const clips = (el) => { const s = getComputedStyle(el); return s.overflowX !== 'visible' || s.overflowY !== 'visible'; };
    const scrollsSideways = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const cellOf = (el) => el.closest('td, th, [role="cell"], [role="columnheader"]');
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) faults.push('the page scrolls sideways: ' + doc.scrollWidth + ' > ' + doc.clientWidth);
    const rows = new Set();
    for (const selector of selectors) {
      for (const el of document.querySelectorAll(selector)) {
        const text = el.textContent.trim();
        if (!text || el.getClientRects().length === 0) continue;
        const cell = cellOf(el);
        if (cell && cell.parentElement) rows.add(cell.parentElement);
        // One line: the text's fragments all sit on one line box.
        const range = document.createRange();
        range.selectNodeContents(el);
        const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.2;
        const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
        if (tops.length > 0 && Math.max(...tops) - Math.min(...tops) > lineHeight / 2) faults.push(label(el) + ' breaks over lines');
        // Clipped: by its own overflow, or by an ancestor that hides what passes its edge.
        const box = el.getBoundingClientRect();
        let clipped = el.scrollWidth > el.clientWidth + 1 && clips(el);
        for (let up = el.parentElement; up && !clipped && up !== document.body; up = up.parentElement) {
          if (!clips(up)) continue;
          const edge = up.getBoundingClientRect();
          if (box.right > edge.right + 1 || box.left < edge.left - 1) {
            if (scrollsSideways(up)) break;
            clipped = true;
          }
          break;
        }
        if (clipped) {
          if (neverClipped.some((s) => el.matches(s))) faults.push(label(el) + ' is cut off');
          const title = el.closest('[title]')?.getAttribute('title') || '';
          if (!title.includes(text)) faults.push(label(el) + ' is cut off with no title holding it (title: "' + title + '")');
        }
        // Cut off at the window's edge with no way to scroll to it.
        if (box.right > window.innerWidth + 1) {
          let scroller = false;
          for (let up = el.parentElement; up; up = up.parentElement) if (scrollsSideways(up) && up.scrollWidth > up.clientWidth) scroller = true;
          if (!scroller) faults.push(label(el) + ' runs past the window edge (' + Math.round(box.right) + ' px) with no scroll');
        }
        // Text wider than its own box, not clipped: it spills over whatever is beside it.
        if (el.clientWidth > 0 && !clips(el) && el.scrollWidth > el.clientWidth + 1) faults.push(label(el) + ' spills over its neighbour');
        // A column squeezed to nothing is a column gone.
        if (box.width < 12) faults.push(label(el) + ' is squeezed to ' + Math.round(box.width) + ' px');
        // Visible inside its own cell: no identifier spills over the next column.
        if (cell && cell !== el && !clipped) {
          const c = cell.getBoundingClientRect();
          if (box.right > c.right + 1 || box.left < c.left - 1) faults.push(label(el) + ' spills out of its cell');
        }
      }
    }
    // Phrases: each word (a run without spaces; a hyphen does not end it) on one line.
    for (const selector of phrases) {
      for (const el of document.querySelectorAll(selector)) {
        if (el.getClientRects().length === 0) continue;
        const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.2;
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (const word of node.data.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
            if (tops.length > 1 && Math.max(...tops) - Math.min(...tops) > lineHeight / 2) faults.push(label(el) + ' breaks the word "' + word[0] + '"');
          }
        }
      }
    }
    // Neighbour cells of a row holding identifiers do not overlap.
    for (const row of rows) {
      const cells = [...row.children].filter((c) => c.getClientRects().length > 0).map((c) => [c, c.getBoundingClientRect()]);
      // A grid row's cells all fit in the row (a table's overflow is its scroll box's to show).
      const last = cells.at(-1);
      if (row.getAttribute('role') === 'row' && last && last[1].right > row.getBoundingClientRect().right + 1) faults.push(label(last[0]) + ' runs past the end of its row');
      for (let i = 1; i < cells.length; i++) {
        const [prev, a] = cells[i - 1];
        const [next, b] = cells[i];
        if (a.right > b.left + 1 && a.top < b.bottom && b.top < a.bottom) faults.push(label(prev) + ' overlaps ' + label(next));
      }
    }
    return faults;
  })(${JSON.stringify(selectors)}, ${JSON.stringify(phrases)}, ${JSON.stringify(neverClipped)})`);
}
