// The entry of `toolgate hook claude-code` (out/hook/hook.js): bin/toolgate.js loads it instead of
// the CLI for exactly those words, since Claude Code runs the hook before and after every tool call.
// It loads the state folder's paths, the hook client and Node's net module; the gate does the rest.
import { resolveHome } from '../state/paths';
import { answerClaudeCodeHook } from './hookClient';

answerClaudeCodeHook(process.stdin, resolveHome()).then(
  (line) => {
    process.stdout.write(line);
  },
  (error: Error) => {
    // As the CLI ends any command that fails: exit 2, which Claude Code takes as a block.
    process.stderr.write(`toolgate hook: ${error.message}\n`);
    process.exitCode = 2;
  },
);
