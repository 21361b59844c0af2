import { describe, expect, it } from 'vitest';
import { gitVerbIndex } from '../../main/policy/gitCommands';

describe('gitVerbIndex', () => {
  it('reads the verb as git does: the first word, past the --quiet submodule takes before it', () => {
    expect(gitVerbIndex('stash', ['list'], 'as-git')).toBe(0);
    // A push with the message "list": no verb.
    expect(gitVerbIndex('stash', ['-m', 'list'], 'as-git')).toBe(0);
    expect(gitVerbIndex('submodule', ['--quiet', '-q', 'status'], 'as-git')).toBe(2);
    expect(gitVerbIndex('stash', [], 'as-git')).toBe(0);
  });

  it('reads past any options when a verb must not be missed, even one git would refuse there', () => {
    expect(gitVerbIndex('bisect', ['--bogus', 'run', 'make'], 'past-options')).toBe(1);
    expect(gitVerbIndex('submodule', ['--quiet', 'foreach', 'x'], 'past-options')).toBe(1);
    expect(gitVerbIndex('bisect', ['-x'], 'past-options')).toBe(1);
  });
});
