import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';
import { LoggingLevelSchema, type LoggingLevel, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolLogLine } from '../executor/callLogs';
import { INVALID_PARAMS, ProtocolError } from './callToolResult';

/** How many of one call's log lines reach its agent; past it they are counted, and the count is told. */
export const MAX_LOG_LINES_PER_CALL = 200;

/** How many bytes of log (each line's data as JSON) one call sends its agent; past it, as above. */
export const MAX_LOG_BYTES_PER_CALL = 64 * 1024;

/** A line's text past this many characters is cut (an upstream server's structured data is sent as its JSON text then). */
export const MAX_LOG_LINE_CHARS = 4096;

/** The `logger` of the gate's own line that says how many lines were dropped. */
const GATE_LOGGER = 'toolgate';

/**
 * `_meta` key of a 2026-07-28 result under which the call's log lines come (that revision has no
 * logging): the same lines, in the same bounds, a 2025 session is sent as notifications/message.
 */
export const CALL_LOG_META = 'toolgate/log';

/** `_meta` key of a 2026-07-28 tools/call naming the lowest level of the lines its result carries (default: all). */
export const LOG_LEVEL_META = 'toolgate/logLevel';

/** The params of one `notifications/message`. */
export type LogMessageParams = LoggingMessageNotification['params'];

/** RFC 5424's order as MCP names the levels: debug (0) up to emergency (7). */
const SEVERITY = new Map<LoggingLevel, number>(LoggingLevelSchema.options.map((level, index) => [level, index]));

/** Whether a line at `level` passes an agent's `minimum` (none set: every line does, as the SDK's own filter has it). */
export function passesLevel(level: LoggingLevel, minimum: LoggingLevel | undefined): boolean {
  return minimum === undefined || SEVERITY.get(level)! >= SEVERITY.get(minimum)!;
}

/** A line's data within MAX_LOG_LINE_CHARS: text cut at the bound; other JSON kept, or sent as its cut JSON text. */
function boundedData(data: unknown): { data: unknown; bytes: number } {
  const json = JSON.stringify(data) ?? 'null';
  if (typeof data === 'string' ? data.length <= MAX_LOG_LINE_CHARS : json.length <= MAX_LOG_LINE_CHARS) {
    return { data, bytes: Buffer.byteLength(json) };
  }
  const text = typeof data === 'string' ? data : json;
  const cut = `${text.slice(0, MAX_LOG_LINE_CHARS)}… [line cut]`;
  return { data: cut, bytes: Buffer.byteLength(JSON.stringify(cut)) };
}

/**
 * One call's log lines on their way to its agent. Lines below the agent's level are left out (they
 * are not its to see, and count for nothing); the rest are sent until the call has sent
 * MAX_LOG_LINES_PER_CALL lines or MAX_LOG_BYTES_PER_CALL bytes. Past that a line is only counted,
 * so a flood costs neither memory nor the call's time, and finish() sends one last line saying how
 * many were dropped, at the level of the most severe of them.
 */
export class CallLogBudget {
  private lines = 0;
  private bytes = 0;
  private dropped = 0;
  private droppedLevel: LoggingLevel | undefined;

  constructor(
    /** The agent's level right now (it may set another while the call runs). */
    private readonly minimum: () => LoggingLevel | undefined,
    private readonly send: (params: LogMessageParams) => void,
  ) {}

  /** One line of the call: sent, left out below the level, or counted as dropped. */
  line(line: ToolLogLine): void {
    if (!passesLevel(line.level, this.minimum())) return;
    if (this.dropped === 0 && this.lines < MAX_LOG_LINES_PER_CALL) {
      const bounded = boundedData(line.data);
      if (this.bytes + bounded.bytes <= MAX_LOG_BYTES_PER_CALL) {
        this.lines++;
        this.bytes += bounded.bytes;
        this.send({ level: line.level, ...(line.logger ? { logger: line.logger } : {}), data: bounded.data });
        return;
      }
    }
    this.dropped++;
    if (this.droppedLevel === undefined || SEVERITY.get(line.level)! > SEVERITY.get(this.droppedLevel)!) this.droppedLevel = line.level;
  }

  /** The call is answered: tells the agent how many of its lines were dropped, if any were. */
  finish(): void {
    if (this.dropped === 0 || !this.droppedLevel) return;
    const data = `… ${this.dropped} more ${this.dropped === 1 ? 'line' : 'lines'} dropped (a call sends at most ${MAX_LOG_LINES_PER_CALL} log lines or ${MAX_LOG_BYTES_PER_CALL / 1024} KiB)`;
    this.send({ level: this.droppedLevel, logger: GATE_LOGGER, data });
    this.dropped = 0;
  }
}

/**
 * Answers `logging/setLevel` on a 2025-era server that declared the logging capability, telling
 * `onLevel` the level the agent chose. It replaces the SDK's own handler, which keeps the level
 * private to the SDK's sendLoggingMessage: that one sends outside any request (on a session's GET
 * stream, which a client need not open, and in no order with the call's result), while a call's
 * lines go on that call's own stream, ahead of its result. The SDK still validates the request:
 * a level MCP does not name is refused as invalid params.
 */
export function answerSetLevel(server: Server, onLevel: (level: LoggingLevel) => void | Promise<void>): void {
  server.setRequestHandler(SetLevelRequestShape, async (request) => {
    await onLevel(loggingLevel(request.params.level, 'level'));
    return {};
  });
}

/**
 * logging/setLevel with any level: the SDK's own schema would refuse a wrong one as an internal
 * error (-32603) with zod's issue list as its message; here it is invalid params, saying which levels there are.
 */
const SetLevelRequestShape = z.object({
  method: z.literal('logging/setLevel'),
  params: z.looseObject({ level: z.unknown() }),
});

/** `value` as an MCP level, or the invalid-params error that names the levels (`field` says where it was). */
function loggingLevel(value: unknown, field: string): LoggingLevel {
  const parsed = LoggingLevelSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ProtocolError(INVALID_PARAMS, `${field} must be one of ${LoggingLevelSchema.options.join(', ')}; it was ${JSON.stringify(value)?.slice(0, 100)}`);
}

/** The level a 2026-07-28 call asked for under LOG_LEVEL_META, if any; a value that is not a level is refused, saying which are. */
export function requestedLogLevel(meta: Record<string, unknown> | undefined): LoggingLevel | undefined {
  const value = meta?.[LOG_LEVEL_META];
  return value === undefined ? undefined : loggingLevel(value, `_meta["${LOG_LEVEL_META}"]`);
}
