import { describe, expect, it } from 'vitest';
import { countDiffLines, formatDiffStats } from '../../renderer/format/diffStats';
import { compactJson, truncate } from '../../renderer/format/json';
import { guessLanguageId } from '../../renderer/format/language';
import { formatCountdown, formatDuration } from '../../renderer/format/time';

describe('countDiffLines', () => {
  it('counts added and removed lines inside hunks only', () => {
    const unified = [
      '--- a/notes.md',
      '+++ b/notes.md',
      '@@ -1,3 +1,3 @@',
      ' keep',
      '--- a removed line that starts with two dashes',
      '+++ an added line that starts with two pluses',
      ' keep',
      '@@ -10,2 +10,3 @@',
      ' context',
      '-old',
      '+new',
      '+extra',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    expect(countDiffLines(unified)).toEqual({ added: 3, removed: 2 });
  });

  it('handles a new file and single-line hunk headers', () => {
    expect(countDiffLines('@@ -0,0 +1,2 @@\n+a\n+b\n')).toEqual({ added: 2, removed: 0 });
    expect(countDiffLines('@@ -1 +1 @@\n-a\n+b\n')).toEqual({ added: 1, removed: 1 });
  });

  it('formats as +N −M with a real minus sign', () => {
    expect(formatDiffStats({ added: 4, removed: 2 })).toBe('+4 \u22122');
  });
});

describe('guessLanguageId', () => {
  it('maps known extensions and falls back to plaintext', () => {
    expect(guessLanguageId('src/app.tsx')).toBe('typescript');
    expect(guessLanguageId('scripts\\build.PY')).toBe('python');
    expect(guessLanguageId('Dockerfile')).toBe('dockerfile');
    expect(guessLanguageId('.env')).toBe('plaintext');
    expect(guessLanguageId('LICENSE')).toBe('plaintext');
    expect(guessLanguageId('data.unknownext')).toBe('plaintext');
  });
});

describe('json and time formatting', () => {
  it('truncates with an ellipsis and survives values JSON cannot hold', () => {
    expect(truncate('abcdef', 4)).toEqual({ text: 'abc…', truncated: true });
    expect(truncate('abc', 4)).toEqual({ text: 'abc', truncated: false });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(compactJson(cyclic)).toBe('[object Object]');
    expect(compactJson(undefined)).toBe('—');
  });

  it('formats a countdown as m:ss and never below zero', () => {
    expect(formatCountdown(61_000)).toBe('1:01');
    expect(formatCountdown(500)).toBe('0:01');
    expect(formatCountdown(-5)).toBe('0:00');
    expect(formatCountdown(3_600_000)).toBe('1:00:00');
  });
});

describe('formatDuration', () => {
  it('reads as a person would say it: whole minutes without "0 s", and never "60 s"', () => {
    expect([450, 1_400, 60_000, 65_000, 119_600, 600_000].map(formatDuration)).toEqual(['450 ms', '1.4 s', '1 min', '1 min 5 s', '2 min', '10 min']);
    expect(formatDuration(59_990)).toBe('1 min');
  });
});
