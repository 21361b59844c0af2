import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CallOutcomeSchema,
  DeciderSchema,
  ExplorerFilterSchema,
  ExportFormatSchema,
  MIN_SEARCH_CHARS,
  type ExplorerFilter,
  type ExportFormat,
} from '../../shared/explorer';
import { SECURITY_TIERS } from '../../shared/manifest';
import { counted, exportChunks, withRecords, type CallSource } from '../audit/exportCalls';
import { UsageError, flag, type ParsedArgs } from './argv';
import { openAuditLog } from './auditLog';
import type { Io } from './commands';
import { countOf } from '../../shared/plural';

/** Where `audit export` gets its calls and writes when no --out is given. */
export interface AuditExportDeps {
  calls: CallSource;
  stdout: Writable;
}

/** Every value of a repeatable option, each also split at commas (`--outcome failed,rejected`). */
function values(args: ParsedArgs, name: string): string[] | undefined {
  const given = args.flags.get(name)?.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
  return given && given.length > 0 ? given : undefined;
}

/** Values that must each be one of `allowed`. */
function choices<T extends string>(args: ParsedArgs, name: string, allowed: readonly T[]): T[] | undefined {
  const given = values(args, name);
  for (const value of given ?? []) {
    if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} takes ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
  }
  return given as T[] | undefined;
}

/** A time option as ISO 8601; a date alone (2026-11-23) is midnight UTC. */
function time(args: ParsedArgs, name: string): string | undefined {
  const value = flag(args, name);
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new UsageError(`--${name} takes an ISO 8601 time such as 2026-11-23 or 2026-11-23T14:05:00Z, not ${JSON.stringify(value)}`);
  return new Date(ms).toISOString();
}

/** The explorer filter a command line gives: the same facets, times, search and call id as the console's view. */
export function filterFromArgs(args: ParsedArgs): ExplorerFilter {
  const search = flag(args, 'search');
  if (search !== undefined && search.trim().length < MIN_SEARCH_CHARS) {
    throw new UsageError(`--search needs at least ${MIN_SEARCH_CHARS} characters (the text index matches three or more), not ${JSON.stringify(search)}`);
  }
  const tiers = values(args, 'tier')?.map((tier) => tier.toUpperCase());
  for (const tier of tiers ?? []) {
    if (!(SECURITY_TIERS as readonly string[]).includes(tier)) throw new UsageError(`--tier takes ${SECURITY_TIERS.join(', ')}, not ${JSON.stringify(tier)}`);
  }
  const filter: ExplorerFilter = {
    ...(values(args, 'tool') ? { tool: values(args, 'tool') } : {}),
    ...(choices(args, 'outcome', CallOutcomeSchema.options) ? { outcome: choices(args, 'outcome', CallOutcomeSchema.options) } : {}),
    ...(choices(args, 'decider', DeciderSchema.options) ? { decider: choices(args, 'decider', DeciderSchema.options) } : {}),
    ...(values(args, 'session') ? { session: values(args, 'session') } : {}),
    ...(tiers ? { tier: tiers } : {}),
    ...(time(args, 'from') ? { from: time(args, 'from') } : {}),
    ...(time(args, 'to') ? { to: time(args, 'to') } : {}),
    ...(search !== undefined ? { text: search.trim() } : {}),
    ...(flag(args, 'call') ? { callId: flag(args, 'call') } : {}),
  };
  if (filter.from && filter.to && filter.from >= filter.to) throw new UsageError(`--from (${filter.from}) must be before --to (${filter.to})`);
  const parsed = ExplorerFilterSchema.safeParse(filter);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`--${issue.path[0] === 'text' ? 'search' : issue.path[0] === 'callId' ? 'call' : String(issue.path[0])}: ${issue.message}`);
  }
  return parsed.data;
}

function formatOf(args: ParsedArgs): ExportFormat {
  const format = flag(args, 'format') ?? 'jsonl';
  const parsed = ExportFormatSchema.safeParse(format);
  if (!parsed.success) throw new UsageError(`--format takes ${ExportFormatSchema.options.join(' or ')}, not ${JSON.stringify(format)}`);
  return parsed.data;
}

/** Writes the chunks to `path` through a temporary file beside it, renamed over it only once all is written. */
async function writeAtomically(path: string, chunks: Iterable<string>): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.part`);
  try {
    await pipeline(Readable.from(chunks), createWriteStream(temporary, { flags: 'wx', mode: 0o600 }));
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * `toolgate audit export [--format jsonl|otlp] [filters] [--content] [--out FILE]`: the calls the
 * filters match, newest first, one at a time from the log to the output, so memory stays flat
 * however many there are. Exit 0 written, 2 on a bad option or no log.
 */
export async function auditExportCommand(args: ParsedArgs, io: Io, deps: AuditExportDeps): Promise<number> {
  if (args.positionals.length > 1) throw new UsageError(`export takes no arguments, only options; got ${JSON.stringify(args.positionals.slice(1).join(' '))}`);
  const format = formatOf(args);
  const filter = filterFromArgs(args);
  const content = flag(args, 'content') === 'true';
  const out = flag(args, 'out');
  const target = out === undefined || out === '-' ? undefined : resolve(out);
  if (target && !existsSync(dirname(target))) throw new UsageError(`--out ${out}: the folder ${dirname(target)} does not exist`);
  const store = openAuditLog(io);
  if (!store) return 2;
  try {
    // A running gate folds its newest records into the call index within seconds of committing them.
    const behind = store.callIndex().behind();
    if (behind > 0) io.err(`the call index is ${behind} record${behind === 1 ? '' : 's'} behind the log (a gate is writing it): calls that ended in the last few seconds are not exported; run the export again to include them\n`);
    const calls = counted(withRecords(deps.calls(store, filter), (callId) => store.forCall(callId)));
    const chunks = exportChunks(calls.items, { format, content });
    if (target) await writeAtomically(target, chunks);
    else {
      try {
        await pipeline(Readable.from(chunks), deps.stdout, { end: false });
      } catch (error) {
        // The reader stopped reading (`| head`): what it wanted was written; that is no failure.
        if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0;
        throw error;
      }
    }
    io.err(`exported ${countOf(calls.count(), 'call')} as ${format === 'jsonl' ? 'JSONL' : 'OTLP JSON'}${content ? ' with arguments and results' : ''}${target ? ` to ${target}` : ''}\n`);
    return 0;
  } finally {
    store.close();
  }
}
