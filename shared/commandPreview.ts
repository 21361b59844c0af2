import { z } from 'zod';

/** What a shell prompt warns of before its sub-commands, one badge each. */
export const RiskFlagKindSchema = z.enum([
  /** It reaches the network (curl, wget, ssh, git push/pull/fetch/clone, /dev/tcp, …). */
  'network',
  /** It runs as another user (sudo, su, doas, pkexec). */
  'privilege',
  /** It deletes folders with everything in them (rm -r in any spelling, find -delete, git clean -d). */
  'recursive-delete',
  /** It pipes or feeds a download to a shell or interpreter (curl … | sh, bash <(curl …)). */
  'download-to-shell',
  /** It writes somewhere outside the workspace, or somewhere only known when it runs (~, .., /etc, $VAR). */
  'outside-workspace',
  /** It sets environment variables for a program (PATH=. ls, env X=1 cmd). */
  'environment-prefix',
  /** It leaves something running in the background (&, nohup, disown, setsid, coproc). */
  'background',
  /** It runs code the prompt cannot list as commands (eval, bash -c, source, python -c, npm run, …). */
  'runs-hidden-code',
]);
export type RiskFlagKind = z.infer<typeof RiskFlagKindSchema>;

/** One risk of a command line, with what on the line raised it. */
export const RiskFlagSchema = z.object({
  /** Which risk. */
  kind: RiskFlagKindSchema,
  /** The words or sub-commands that raised it (each cut to a few hundred characters). */
  evidence: z.array(z.string()),
});
export type RiskFlag = z.infer<typeof RiskFlagSchema>;

/** Code a sub-command runs that the line does not show as commands of its own. */
export const HiddenCodeSchema = z.object({
  /** How it runs the code, e.g. "bash -c runs this script" or "npm run runs a script from package.json". */
  why: z.string(),
  /** The code itself as far as the line holds it (the script text, the file or package name). */
  code: z.string(),
});
export type HiddenCode = z.infer<typeof HiddenCodeSchema>;

/** One simple command of a command line, as a shell grammar read it. */
export const SubCommandSchema = z.object({
  /** The command's own text. */
  text: z.string(),
  /** Program and arguments as written (quotes kept, expansions unexpanded). */
  argv: z.array(z.string()),
  /** The program bash runs, when its name as written differs ($'\x72m' is rm, "rm" is rm), or is computed. */
  program: z.string().optional(),
  /** Words written with $'…' escapes and what bash reads them as ($'\x2d\x72' is -r): escapes must not hide text. */
  decodedWords: z.array(z.object({ written: z.string(), value: z.string() })).optional(),
  /** What joins it to the command after it: ';', '&&', '||', '|', '&', or nothing for the last. */
  connector: z.string().optional(),
  /** Redirections, e.g. { op: '>', target: 'out.txt' }. */
  redirects: z.array(z.object({ op: z.string(), target: z.string() })),
  /** Command substitutions and process substitutions inside it ($(…), `…`, <(…)). */
  substitutions: z.array(z.string()),
  /** Where the command runs: at top level, or nested inside a substitution, subshell or function. */
  nested: z.boolean(),
  /** Code it runs that is not shown here as commands: the prompt flags it "runs code not shown here". */
  runsCode: z.array(HiddenCodeSchema),
});
export type SubCommand = z.infer<typeof SubCommandSchema>;

/** A shell command line for the person to approve: risks first, then every sub-command. */
export const CommandPreviewSchema = z.object({
  kind: z.literal('command'),
  /** The command line exactly as the agent sent it. */
  command: z.string(),
  /** Workspace-relative working directory. */
  cwd: z.string(),
  /** The risks of the line, shown as badges above everything else. */
  flags: z.array(RiskFlagSchema),
  /** Every simple command the line runs, in order, as a shell grammar read it. */
  commands: z.array(SubCommandSchema),
});
export type CommandPreview = z.infer<typeof CommandPreviewSchema>;
