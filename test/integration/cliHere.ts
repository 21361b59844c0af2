import { terminalText } from '../../shared/inertText';
import { main } from '../../main/cli/main';
import type { CliRun } from './cliProcesses';

/**
 * Runs a CLI command in this process through the same main() the built CLI runs, its output kept
 * as the terminal would show it: for tests that check only what a command prints, without paying
 * for a Node process each. Not for `serve`, which lives as long as its process.
 */
export async function runCliHere(args: string[], home: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { out: (text) => (stdout += terminalText(text)), err: (text) => (stderr += terminalText(text)), home });
  return { code, stdout, stderr };
}
