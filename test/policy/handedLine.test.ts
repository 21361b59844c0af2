import { describe, expect, it } from 'vitest';
import { handedLine } from '../../main/policy/handedCode';
import { parseCommand } from '../../main/tools/shell/parseCommand';

describe('handedLine', () => {
  it('parses the shell text a sub-command hands on once, for every reader of that sub-command', async () => {
    const [command] = await parseCommand(`sh -c "cat key.txt"`);
    const line = handedLine(command!, 'cat key.txt');
    expect(line).toMatchObject({ commands: [{ argv: ['cat', 'key.txt'] }] });
    expect(handedLine(command!, 'cat key.txt')).toBe(line);
    const [other] = await parseCommand(`sh -c "cat key.txt"`);
    expect(handedLine(other!, 'cat key.txt')).not.toBe(line);
  });

  it('says why text that cannot be read is unreadable', async () => {
    const [command] = await parseCommand(`sh -c "cat <("`);
    expect(handedLine(command!, 'cat <(')).toMatchObject({ unreadable: expect.stringContaining('the shell text "cat <(" cannot be read') });
  });
});
