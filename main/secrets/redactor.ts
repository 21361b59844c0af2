/**
 * Takes secret values back out of what a tool produced: each occurrence becomes its placeholder
 * text `$ENV.NAME`. Every form in secretForms.ts is looked for (raw, JSON-escaped, base64,
 * base64url, base32, hex, URL-encoded, every byte percent-encoded), in any letter case, and each
 * is replaced by the same placeholder.
 */
import { mapStrings } from './jsonStrings';
import { foldCase, secretForms } from './secretForms';
import { placeholderFor, type ResolvedSecret } from './placeholders';

/** A text to look for and what replaces it. */
interface Needle {
  text: string;
  placeholder: string;
}

/** One occurrence of a needle in a text. */
interface Span {
  start: number;
  end: number;
  placeholder: string;
}

/** Every occurrence of every (case-folded) needle in any case, overlaps included, by start and then longest first. */
function findSpans(text: string, needles: readonly Needle[]): Span[] {
  const spans: Span[] = [];
  const folded = foldCase(text);
  for (const { text: needle, placeholder } of needles) {
    for (let at = folded.indexOf(needle); at >= 0; at = folded.indexOf(needle, at + 1)) {
      spans.push({ start: at, end: at + needle.length, placeholder });
    }
  }
  return spans.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** The redacted text[from, to), and where it stopped: past `to` when a secret straddles `to`. */
interface Rendered {
  text: string;
  end: number;
  /** The placeholder the text ends with, if it ends with one (so an overlap does not repeat it). */
  trailing: string | undefined;
}

/**
 * Redacts text[from, to). Overlapping occurrences merge into one covered stretch, written as the
 * placeholders of the secrets in it (a contained secret adds nothing; overlapping ones each show).
 * `trailing` is the placeholder that ended the text before `from`.
 */
function render(text: string, spans: readonly Span[], from: number, to: number, trailing?: string): Rendered {
  let out = '';
  let pos = from;
  let last = trailing;
  for (const span of spans) {
    if (span.end <= pos) continue;
    if (span.start >= Math.max(to, pos)) break;
    if (span.start > pos) {
      out += text.slice(pos, span.start);
      last = undefined;
    }
    if (span.start >= pos || span.placeholder !== last) out += span.placeholder;
    last = span.placeholder;
    pos = span.end;
  }
  if (pos < to) {
    out += text.slice(pos, to);
    pos = to;
    last = undefined;
  }
  return { text: out, end: pos, trailing: last };
}

/** Redacts text that arrives in chunks (a process's stdout), so a value split across two chunks is still caught. */
export interface StreamRedactor {
  /** The redacted text that is safe to pass on now; up to the longest secret's length minus one is held back. */
  push(chunk: string): string;
  /** Everything held back, redacted; call once at the end of the stream. */
  flush(): string;
}

/** Replaces the secrets a call used with their placeholders, in text, JSON-ish values and streams. */
export class Redactor {
  private readonly needles: Needle[];
  private readonly longest: number;

  constructor(secrets: readonly ResolvedSecret[]) {
    const byText = new Map<string, string>();
    for (const { name, value } of secrets) {
      if (value === '') continue;
      for (const form of secretForms(value)) {
        if (!byText.has(form)) byText.set(form, placeholderFor(name));
      }
    }
    this.needles = [...byText].map(([text, placeholder]) => ({ text, placeholder }));
    this.longest = Math.max(0, ...this.needles.map((needle) => needle.text.length));
  }

  /** Whether there is nothing to redact (every method is then the identity). */
  get isEmpty(): boolean {
    return this.needles.length === 0;
  }

  /** `text` with every occurrence of every secret replaced by `$ENV.NAME`. */
  redactText(text: string): string {
    if (this.isEmpty) return text;
    const spans = findSpans(text, this.needles);
    return spans.length === 0 ? text : render(text, spans, 0, text.length).text;
  }

  /**
   * Where secrets stand in `text` ([start, end) in UTF-16 units, overlapping ones merged): a tool
   * that matches file contents uses it to leave a match that cuts into a secret unmatched.
   */
  secretSpans(text: string): Array<{ start: number; end: number }> {
    const merged: Array<{ start: number; end: number }> = [];
    for (const { start, end } of this.isEmpty ? [] : findSpans(text, this.needles)) {
      const last = merged.at(-1);
      if (last && start < last.end) last.end = Math.max(last.end, end);
      else merged.push({ start, end });
    }
    return merged;
  }

  /** A deep copy of `value` with every string redacted, object keys included (`value` itself when there are no secrets). */
  redactValue(value: unknown): unknown {
    if (this.isEmpty) return value;
    const redact = (text: string) => this.redactText(text);
    return mapStrings(value, redact, redact);
  }

  /**
   * How many characters at the end of `text` could be the start of a secret still to come (the
   * longest end that some form of a secret begins with); a stream holds these back.
   */
  pendingPrefixLength(text: string): number {
    const longestTail = Math.min(text.length, this.longest - 1);
    const folded = longestTail > 0 ? foldCase(text.slice(-longestTail)) : '';
    for (let length = longestTail; length > 0; length--) {
      const tail = folded.slice(-length);
      if (this.needles.some((needle) => needle.text.startsWith(tail))) return length;
    }
    return 0;
  }

  /**
   * Splits text that more may follow into what can be passed on now, redacted, and the raw tail
   * to hold until more arrives: the tail is the longest end that could begin a secret, widened to
   * the start of any secret it cuts through. Nothing that could become a secret is ever passed on.
   */
  redactSettled(text: string): { settled: string; held: string } {
    if (this.isEmpty) return { settled: text, held: '' };
    const spans = findSpans(text, this.needles);
    let cut = text.length - this.pendingPrefixLength(text);
    for (let moved = true; moved; ) {
      moved = false;
      for (const span of spans) {
        if (span.start < cut && span.end > cut) {
          cut = span.start;
          moved = true;
        }
      }
    }
    // Never split a surrogate pair between what is passed on and what is held.
    if (cut > 0 && cut < text.length && /[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut--;
    return { settled: render(text, spans, 0, cut).text, held: text.slice(cut) };
  }

  /** A redactor for one chunked stream (one per stream: stdout and stderr each get their own). */
  createStreamRedactor(): StreamRedactor {
    if (this.isEmpty) return { push: (chunk) => chunk, flush: () => '' };
    const hold = this.longest - 1;
    // `buffer` = text already passed on (kept as context, at most `hold` chars) + text held back from `from` on.
    let buffer = '';
    let from = 0;
    let trailing: string | undefined;
    const emit = (to: number): string => {
      const rendered = render(buffer, findSpans(buffer, this.needles), from, to, trailing);
      trailing = rendered.trailing;
      const keep = Math.max(0, rendered.end - hold);
      buffer = buffer.slice(keep);
      from = rendered.end - keep;
      return rendered.text;
    };
    return {
      push: (chunk) => {
        buffer += chunk;
        let to = buffer.length - hold;
        // Never split a surrogate pair between what is passed on and what is held.
        if (to > 0 && to < buffer.length && /[\uD800-\uDBFF]/.test(buffer[to - 1]!)) to--;
        return to > from ? emit(to) : '';
      },
      flush: () => {
        const rest = emit(buffer.length);
        buffer = '';
        from = 0;
        trailing = undefined;
        return rest;
      },
    };
  }
}
