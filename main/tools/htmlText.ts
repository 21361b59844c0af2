import { lazyModule } from './lazyModule';

const htmlToMarkdown = lazyModule<typeof import('node-html-markdown')>('node-html-markdown');

/** An HTML page as text: Markdown when the converter can take it in time, else plain text, and a note saying why. */
export interface HtmlText {
  /** The page's text. */
  content: string;
  /** How it was made. */
  converted: 'markdown' | 'text';
  /** Why the page came back as plain text, when it did. */
  note?: string;
}

/**
 * Markup (scripts and styles left out) the Markdown converter is given at most: its time grows
 * faster than the page (~2 s at this size, minutes at a few MB), and it runs inside the tool's deadline.
 */
const MAX_MARKDOWN_HTML = 256 * 1024;
/** Element nesting the converter is given at most: it recurses per level and overflows its stack near 4000. */
const MAX_MARKDOWN_DEPTH = 500;
/** Elements without content, which never nest. */
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/**
 * How the converter's parser (node-html-parser) closes an open element when another starts or ends
 * right inside it; nothing else is closed implicitly. Copied, not guessed: closing less than the
 * parser does only over-counts depth (a needless fallback), closing more would let a deep page through.
 */
const CLOSED_BY_OPENING = new Map(Object.entries({
  li: ['li'], p: ['p', 'div'], b: ['div'], td: ['td', 'th'], th: ['td', 'th'],
  h1: ['h1'], h2: ['h2'], h3: ['h3'], h4: ['h4'], h5: ['h5'], h6: ['h6'],
}));
const CLOSED_BY_CLOSING = new Map(Object.entries({
  li: ['ul', 'ol'], a: ['div'], b: ['div'], i: ['div'], p: ['div'], td: ['tr', 'table'], th: ['tr', 'table'],
}));
/** Elements whose content is not text, skipped whole. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style']);
/** Elements that start a new line in plain text. */
const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tr', 'title', 'ul',
]);

/** HTML as Markdown when the converter can take it in time, else as plain text with a note saying why. */
export function htmlContent(html: string): HtmlText {
  const scan = scanHtml(html);
  const reason =
    scan.maxDepth > MAX_MARKDOWN_DEPTH
      ? `elements nest ${scan.maxDepth} deep (more than ${MAX_MARKDOWN_DEPTH})`
      : scan.markup.length > MAX_MARKDOWN_HTML
        ? `the page has ${Math.round(scan.markup.length / 1024)} KiB of markup (more than ${MAX_MARKDOWN_HTML / 1024} KiB)`
        : undefined;
  if (reason === undefined) return { content: htmlToMarkdown().NodeHtmlMarkdown.translate(scan.markup), converted: 'markdown' };
  return { content: scan.text, converted: 'text', note: `HTML returned as plain text, not Markdown: ${reason}` };
}

/** What one linear pass over an HTML page finds. */
interface HtmlScan {
  /** The page without comments, scripts and styles (what the Markdown converter is given). */
  markup: string;
  /** The page's text: tags stripped, entities decoded, whitespace collapsed. */
  text: string;
  /** The deepest element nesting the converter's parser would build. */
  maxDepth: number;
}

/** One pass over the page, each character looked at a bounded number of times however hostile the markup. */
function scanHtml(html: string): HtmlScan {
  const markup: string[] = [];
  const text: string[] = [];
  const open: string[] = [];
  let maxDepth = 0;
  let at = 0;
  while (at < html.length) {
    const start = html.indexOf('<', at);
    const textEnd = start === -1 ? html.length : start;
    if (textEnd > at) {
      markup.push(html.slice(at, textEnd));
      text.push(decodeEntities(html.slice(at, textEnd)));
    }
    if (start === -1) break;
    if (html.startsWith('<!--', start)) {
      const close = html.indexOf('-->', start + 4);
      at = close === -1 ? html.length : close + 3;
      continue;
    }
    const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/.exec(html.slice(start, start + 64));
    const isDeclaration = html.startsWith('<!', start) || html.startsWith('<?', start);
    if (!tag && !isDeclaration) {
      // A lone '<' is text.
      markup.push('<');
      text.push('<');
      at = start + 1;
      continue;
    }
    const end = html.indexOf('>', start);
    if (end === -1) break; // an unfinished tag runs to the end of the page
    at = end + 1;
    if (!tag) continue;
    const closing = tag[1] === '/';
    const name = tag[2]!.toLowerCase();
    if (!closing && RAW_TEXT_ELEMENTS.has(name)) {
      const rawEnd = new RegExp(`</${name}[\\s>/]`, 'gi');
      rawEnd.lastIndex = at;
      const found = rawEnd.exec(html);
      const closeEnd = found ? html.indexOf('>', found.index) : -1;
      at = closeEnd === -1 ? html.length : closeEnd + 1;
      continue;
    }
    markup.push(html.slice(start, at));
    if (BLOCK_ELEMENTS.has(name)) text.push('\n');
    else if (name === 'td' || name === 'th') text.push(' ');
    if (closing) {
      // Pops the element it names, or those the parser closes on its way there; a stray end tag is ignored.
      while (open.length > 0) {
        const top = open.at(-1)!;
        if (top !== name && !CLOSED_BY_CLOSING.get(top)?.includes(name)) break;
        open.pop();
        if (top === name) break;
      }
    } else if (html[end - 1] !== '/' && !VOID_ELEMENTS.has(name)) {
      if (CLOSED_BY_OPENING.get(open.at(-1) ?? '')?.includes(name)) open.pop();
      open.push(name);
      maxDepth = Math.max(maxDepth, open.length);
    }
  }
  return { markup: markup.join(''), text: collapseWhitespace(text.join('')), maxDepth };
}

function collapseWhitespace(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™', hellip: '…',
  mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', middot: '·', bull: '•',
  euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', deg: '°', times: '×', divide: '÷', shy: '',
};

/** Decodes numeric character references and the common named ones; anything else stays as written. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, reference: string) => {
    if (reference[0] !== '#') return NAMED_ENTITIES[reference] ?? NAMED_ENTITIES[reference.toLowerCase()] ?? whole;
    const codePoint = reference[1] === 'x' || reference[1] === 'X' ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
    return codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff) ? String.fromCodePoint(codePoint) : '\ufffd';
  });
}
