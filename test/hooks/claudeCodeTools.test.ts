/** How Claude Code's tools are judged: the built-in each maps to, and its edits applied as Claude Code applies them. */
import { describe, expect, it } from 'vitest';
import { applyStringEdits, equivalentCall } from '../../main/hooks/claudeCodeTools';

describe('equivalentCall', () => {
  it("maps each Claude Code tool to the built-in that does the same, with the paths it reaches", () => {
    const cwd = '/work/app';
    expect(equivalentCall('Bash', { command: 'npm test' }, cwd)).toMatchObject({ call: { tool: 'shell_exec', input: { command: 'npm test', cwd }, paths: [cwd] } });
    expect(equivalentCall('Read', { file_path: '/work/app/a.md' }, cwd)).toMatchObject({ call: { tool: 'read_file', input: { path: '/work/app/a.md' } } });
    expect(equivalentCall('WebFetch', { url: 'https://example.com/x', prompt: 'p' }, cwd)).toMatchObject({ call: { tool: 'http_fetch', input: { url: 'https://example.com/x' }, paths: [] } });
    expect(equivalentCall('mcp__github__create_issue', { title: 't' }, cwd)).toMatchObject({ call: { tool: 'github__create_issue', input: { title: 't' } } });
    // A Glob's pattern reaches where the folder does not say.
    expect(equivalentCall('Glob', { pattern: '/etc/*' }, cwd)).toMatchObject({ call: { tool: 'search_files', paths: [cwd, '/etc/*'] } });
    expect(equivalentCall('TodoWrite', { todos: [] }, cwd)).toEqual({ unknown: "Toolgate has no equivalent of Claude Code's TodoWrite tool, so a person decides" });
    expect(equivalentCall('Write', { file_path: '/work/app/a.md' }, cwd)).toEqual({ malformed: "Write's tool_input has no file_path and content (text)" });
  });
});

describe('equivalentCall with ~name', () => {
  it("judges ~root/… in root's home folder (the passwd database) first, and as a folder named ~root in the cwd too", () => {
    const cwd = '/work/app';
    expect(equivalentCall('Read', { file_path: '~root/.bashrc' }, cwd)).toMatchObject({ call: { input: { path: '/root/.bashrc' }, paths: ['/root/.bashrc', '/work/app/~root/.bashrc'] } });
    expect(equivalentCall('Grep', { pattern: 'x', path: '~root/' }, cwd)).toMatchObject({ call: { input: { path: '/root/' }, paths: ['/root/', '/work/app/~root/'] } });
    expect(equivalentCall('Glob', { pattern: '~root/.*' }, cwd)).toMatchObject({ call: { paths: [cwd, '/root/.*', '/work/app/~root/.*'] } });
    expect(equivalentCall('Write', { file_path: '~root/.bashrc', content: 'x' }, cwd)).toMatchObject({ call: { input: { path: '/root/.bashrc' }, paths: ['/root/.bashrc', '/work/app/~root/.bashrc'] } });
    expect(equivalentCall('Read', { file_path: '~nosuchuser-toolgate/x' }, cwd)).toMatchObject({ call: { input: { path: '/work/app/~nosuchuser-toolgate/x' } } });
  });
});

describe('applyStringEdits', () => {
  it('applies edits as Claude Code does: one match, or every match with replace_all', () => {
    expect(applyStringEdits('a a b', [{ old_string: 'a', new_string: 'c', replace_all: true }])).toEqual({ after: 'c c b' });
    expect(applyStringEdits('a a b', [{ old_string: 'a', new_string: 'c' }])).toEqual({ failure: 'old_string matches 2 times and replace_all is not set' });
    expect(applyStringEdits('x', [{ old_string: 'y', new_string: 'z' }])).toEqual({ failure: 'old_string is not in the file' });
    expect(applyStringEdits('', [{ old_string: '', new_string: 'new file' }])).toEqual({ after: 'new file' });
    // A replacement holding $& is taken literally, not as a pattern.
    expect(applyStringEdits('port', [{ old_string: 'port', new_string: '$&$&' }])).toEqual({ after: '$&$&' });
  });
});
