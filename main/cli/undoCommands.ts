/**
 * `toolgate effects CALL_ID`, `toolgate undo CALL_ID` and `toolgate rewind CALL_ID`. An undo writes
 * the workspace and is a call of its own in the gate's audit log, which only the running gate writes;
 * so the CLI asks that gate through the console bridge, as the console does, with the person's
 * console token (an agent's MCP token cannot ask for it).
 */
import { CallEffectsSchema, UndoReportSchema, type CallEffects, type UndoReport } from '../../shared/effects';
import { countOf } from '../../shared/plural';
import { terminalText } from '../../shared/inertText';
import { UsageError, flag, type ParsedArgs } from './argv';
import { parseCommandLine } from './commandSpec';
import { commandSpec } from './commandSpecs';
import type { Io } from './commands';
import { bridgeRequest, consoleOfRunningGate } from './gateBridge';
import { UNDO_EXIT } from './undoSpecs';

/** The one call id a command takes. */
function callIdOf(args: ParsedArgs, command: string): string {
  const [callId, ...extra] = args.positionals;
  if (!callId) throw new UsageError(`${command} needs a call id: toolgate ${command} CALL_ID (copy one from the explorer or \`toolgate audit list\`)`);
  if (extra.length > 0) throw new UsageError(`${command} takes one call id, not ${extra.length + 1}`);
  return callId;
}

/** Asks the running gate; prints why not and answers undefined when it cannot be asked or refuses. */
async function askGate(io: Io, task: string, method: 'callEffects' | 'undoCall', params: unknown): Promise<unknown> {
  const gate = consoleOfRunningGate(io.home, task);
  if ('problem' in gate) {
    io.err(`${gate.problem}\n`);
    return undefined;
  }
  const reply = await bridgeRequest(gate.address, gate.consoleToken, method, params);
  if (!reply.ok) {
    io.err(`${reply.error.code}: ${reply.error.message}\n`);
    return undefined;
  }
  return reply.value;
}

/** One effect as a line: what happened to which path, with its short hashes. */
function effectLine(effect: CallEffects['effects'][number]): string {
  const short = (hash: string | undefined) => (hash ? hash.slice(0, 12) : '-');
  const path = effect.from === undefined ? effect.path : `${effect.from} → ${effect.path}`;
  const hashes = effect.before?.type === 'file' || effect.after?.type === 'file' ? `  ${short(effect.before?.hash)} → ${short(effect.after?.hash)}` : '';
  const mode = effect.kind === 'mode-changed' ? `  mode ${effect.before!.mode.toString(8)} → ${effect.after!.mode.toString(8)}` : '';
  return `  ${effect.kind.padEnd(12)} ${terminalText(path)}${hashes}${mode}`;
}

/** Runs `effects`: exit 0 with effects, 4 with none, 2 when the gate cannot answer. */
export async function effectsCommand(argv: string[], io: Io): Promise<number> {
  const args = parseCommandLine(commandSpec('effects'), argv, 'effects');
  const callId = callIdOf(args, 'effects');
  const value = await askGate(io, 'the effects are read from the running gate', 'callEffects', { callId });
  if (value === undefined) return 2;
  const effects = value === null ? null : CallEffectsSchema.parse(value);
  if (flag(args, 'json')) io.out(`${terminalText(JSON.stringify(effects, null, 2))}\n`);
  else if (!effects) io.out(`call ${callId} recorded no changes to the workspace (its tool is not one whose effects are recorded, or it never ran)\n`);
  else io.out(`call ${callId} changed ${countOf(effects.effects.length, 'path')} (${effects.method}):\n${effects.effects.map(effectLine).join('\n')}\n`);
  return effects && effects.effects.length > 0 ? 0 : UNDO_EXIT.nothing;
}

/** Runs `undo`: see UNDO_EXIT. */
export function undoCommand(argv: string[], io: Io): Promise<number> {
  return undoOrRewind(argv, io, 'undo');
}

/** Runs `rewind`: see UNDO_EXIT. */
export function rewindCommand(argv: string[], io: Io): Promise<number> {
  return undoOrRewind(argv, io, 'rewind');
}

async function undoOrRewind(argv: string[], io: Io, command: 'undo' | 'rewind'): Promise<number> {
  const args = parseCommandLine(commandSpec(command), argv, command);
  const callId = callIdOf(args, command);
  const choices: Record<string, string> = {};
  for (const path of args.flags.get('keep') ?? []) choices[path] = 'keep-current';
  for (const path of args.flags.get('restore-anyway') ?? []) {
    if (choices[path]) throw new UsageError(`${path} is given to both --keep and --restore-anyway: say one of them`);
    choices[path] = 'restore-anyway';
  }
  const request = { callId, rewind: command === 'rewind', dryRun: flag(args, 'dry-run') === 'true', choices };
  const value = await askGate(io, 'an undo writes the workspace and the audit log of the running gate', 'undoCall', request);
  if (value === undefined) return 2;
  const report = UndoReportSchema.parse(value);
  if (flag(args, 'json')) io.out(`${terminalText(JSON.stringify(report, null, 2))}\n`);
  else printReport(report, io);
  return UNDO_EXIT[report.outcome];
}

function printReport(report: UndoReport, io: Io): void {
  const lines = [`${report.outcome}: ${terminalText(report.reason)}`];
  if (report.calls.length > 0) lines.push(`  calls  ${report.calls.join(', ')} (newest first)`);
  if (report.undoCallId) lines.push(`  undo   call ${report.undoCallId} (undo it to redo)`);
  for (const change of report.changes) {
    lines.push('', `${change.conflict ? 'CONFLICT ' : ''}${change.action}: ${terminalText(change.path)}${change.redacted ? ' (secrets as placeholders)' : ''}`);
    if (change.conflict) {
      const hash = (state: typeof change.current) => (state === null ? 'absent' : (state.hash?.slice(0, 12) ?? state.target ?? state.type));
      lines.push(`  before the call ${hash(change.target)}   after it ${hash(change.expected)}   now ${hash(change.current)}`);
    }
    lines.push(terminalText(change.diff).trimEnd());
  }
  (report.outcome === 'conflict' || report.outcome === 'not-undoable' ? io.err : io.out)(`${lines.join('\n')}\n`);
}
