import type { CommandPreview } from '../../../shared/commandPreview';
import { parseCommand } from './parseCommand';
import { riskFlagsOf, type RunPlace } from './riskFlags';

/**
 * What a person is shown before a command line runs: every sub-command as a shell grammar reads it,
 * with its risk badges. shell_exec's dry run and Claude Code's Bash hook both show this; a line the
 * grammar cannot read throws (GateError), and nobody is asked to approve it.
 */
export async function shellPreview(command: string, place: RunPlace, shownCwd: string): Promise<CommandPreview> {
  const commands = await parseCommand(command);
  return { kind: 'command', command, cwd: shownCwd, flags: riskFlagsOf(commands, place), commands };
}
