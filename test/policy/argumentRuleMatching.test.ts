import { describe, expect, it } from 'vitest';
import { argumentsMatch, compileArgumentsPattern } from '../../main/policy/argumentRule';
import { RuleError } from '../../main/policy/ruleText';

/** Whether `tool(<specifier>)` matches these arguments, as an allow does or as a deny or ask does. */
function allows(specifier: string, args: Record<string, unknown>): boolean {
  return argumentsMatch(compileArgumentsPattern(specifier), args);
}
function holds(specifier: string, args: Record<string, unknown>): boolean {
  return argumentsMatch(compileArgumentsPattern(specifier), args, 'broad');
}

describe('an upstream tool’s argument rule', () => {
  it('needs every pair to match, each a glob over the value (dot names included)', () => {
    expect(allows('repo=acme/*, title=docs:*', { repo: 'acme/site', title: 'docs: fix' })).toBe(true);
    expect(allows('repo=acme/*, title=docs:*', { repo: 'acme/site', title: 'feat: x' })).toBe(false);
    expect(allows('repo=acme/*', { repo: 'acme/.github' })).toBe(true);
    expect(allows('repo=acme/*', { repo: 'acme/a/b' })).toBe(false);
    expect(allows('repo=acme/**', { repo: 'acme/a/b' })).toBe(true);
  });

  it('matches numbers and booleans as text; a missing argument, null, an object or a list never meet an allow', () => {
    expect(allows('count=3', { count: 3 })).toBe(true);
    expect(allows('draft=true', { draft: true })).toBe(true);
    expect(allows('draft=true', { draft: false })).toBe(false);
    for (const value of [undefined, null, { name: 'x' }, ['x'], ['x', 'y']]) expect(allows('name=*', { name: value })).toBe(false);
    expect(allows('name=*', {})).toBe(false);
  });

  it('names a nested argument by its dotted path, through objects only', () => {
    expect(allows('options.branch=main', { options: { branch: 'main' } })).toBe(true);
    expect(allows('options.branch=main', { options: { branch: 'dev' } })).toBe(false);
    expect(allows('options.branch=main', { options: [{ branch: 'main' }] })).toBe(false);
    expect(allows('options.branch=main', { options: null })).toBe(false);
    expect(allows('options.branch=main', { options: 'main' })).toBe(false);
    expect(allows('options.branch=main', { 'options.branch': 'main' })).toBe(false);
    // An inherited name is not an argument the agent sent.
    expect(allows('constructor=*', {})).toBe(false);
    expect(allows('options.constructor=*', { options: {} })).toBe(false);
    // Nor into a string's characters or length.
    expect(allows('title.length=3', { title: 'abc' })).toBe(false);
    expect(allows('title.0=a', { title: 'abc' })).toBe(false);
  });

  it('as a deny or ask, holds a list when any value matches, and a path with . and .. segments as the server resolves it', () => {
    expect(holds('path=secrets/**', { path: ['docs/a.md', 'secrets/key'] })).toBe(true);
    expect(holds('path=secrets/**', { path: ['docs/a.md'] })).toBe(false);
    expect(holds('path=secrets/**', { path: 'a/../secrets/key' })).toBe(true);
    expect(holds('path=secrets/**', { path: './secrets/./key' })).toBe(true);
    expect(allows('path=secrets/**', { path: 'a/../secrets/key' })).toBe(false);
    expect(holds('path=secrets/**', { path: 'docs/key' })).toBe(false);
    expect(holds('count=3', { count: [1, 3] })).toBe(true);
    expect(holds('name=*', {})).toBe(false);
    expect(holds('a=x, b=y', { a: 'x', b: 'z' })).toBe(false);
  });

  it('writes a value holding a comma or a quote as a JSON string', () => {
    expect(allows('title="a, b", repo=acme/x', { title: 'a, b', repo: 'acme/x' })).toBe(true);
    expect(allows('title="say \\"hi\\", then go"', { title: 'say "hi", then go' })).toBe(true);
    expect(allows('title="a\\\\", repo=x', { title: 'a\\', repo: 'x' })).toBe(true);
    // An escaped quote does not end the string, so the comma after it is part of the value.
    expect(allows('title="x\\", y=z"', { title: 'x", y=z' })).toBe(true);
    expect(compileArgumentsPattern('title="a, b"').pairs.map((pair) => [pair.argument, pair.glob])).toEqual([['title', 'a, b']]);
  });

  it('marks a pair that matches every value, for a second look before it is saved', () => {
    expect(compileArgumentsPattern('a=*, b=**, c=x*, d="*"').pairs.map((pair) => pair.matchesAnything)).toEqual([true, true, false, true]);
  });

  it('keeps each pair’s argument and glob trimmed', () => {
    expect(compileArgumentsPattern('  repo = acme/* ,title=x').pairs.map((pair) => [pair.argument, pair.glob])).toEqual([
      ['repo', 'acme/*'],
      ['title', 'x'],
    ]);
  });

  it('is refused, saying how to write it, when a pair is not argument=glob', () => {
    for (const specifier of ['repo', '=x', 'repo=', 'repo= ', 'my repo=x', 'a..b=x', '.a=x', 'repo=x,', 'title="a, b', 'title="a\\', 'title="\\q"', 'title="a"b']) {
      expect(() => compileArgumentsPattern(specifier), specifier).toThrow(RuleError);
    }
  });
});
