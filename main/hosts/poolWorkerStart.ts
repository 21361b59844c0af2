import { inertText } from '../../shared/inertText';
import { describeExit, type PoolWorker } from './callSupervisor';
import { HostReplySchema, stderrEndMarker } from './protocol';
import type { ToolProcessPoolOptions } from './poolOptions';
import type { Isolation } from './toolCall';

/**
 * Starts one process of the tool-process pool: its log lines (a call's stderr end marker is read
 * here, not passed on), its output budget (a call past it has its process killed: EQUOTA) and its
 * readiness (the process says "ready", or it failed to start: exited first, or took too long).
 */

const MIB = 1024 * 1024;
/** Lines of stderr kept from a tool process that has not started yet, to say why it could not. */
const STARTUP_STDERR_LINES = 5;

/** What the pool hears of a process's start. */
export interface StartHooks {
  /** The process said it is ready. */
  onReady(): void;
  /** It exited or timed out before it was ready. */
  onFailedStart(): void;
}

/** Starts a process for `isolation`, labelled `label`, as a PoolWorker whose `ready` settles once it has started (or could not). */
export function startPoolWorker(options: ToolProcessPoolOptions, isolation: Isolation, profileName: string, label: string, hooks: StartHooks): PoolWorker {
  let worker!: PoolWorker;
  // What it printed on stderr before it was ready: why it could not start (bubblewrap's or Node's words).
  let startupStderr: string[] | undefined = [];
  const maxLogBytes = options.maxLogBytesPerCall ?? 4 * MIB;
  const process = options.factory({
    entry: options.entry,
    env: options.env,
    label,
    wrapper: isolation.wrapper,
    maxMessageBytes: options.maxMessageBytes,
    ...(options.cgroups ? { processLimit: { cgroups: options.cgroups, maxProcesses: options.maxProcesses ?? 64 } } : {}),
    onLog: (stream, line) => {
      const marker = stream === 'stderr' && worker.callId !== undefined ? stderrEndMarker(worker.callId) : undefined;
      if (marker && line.endsWith(marker)) {
        // What the call left open on its last line ends with it.
        if (line.length > marker.length) options.onLog?.(worker.callId, stream, line.slice(0, -marker.length));
        worker.stderrEndedFor = worker.callId;
        worker.onStderrEnd?.();
        return;
      }
      if (stream === 'stderr' && startupStderr && startupStderr.length < STARTUP_STDERR_LINES && line.trim()) startupStderr.push(inertText(line.trim().slice(0, 300)));
      options.onLog?.(worker.callId, stream, line);
    },
    onOutputBytes: (bytes) => {
      worker.logBytes += bytes;
      if (worker.logBytes > maxLogBytes && !worker.retired) {
        for (const overLimit of worker.overLimit) overLimit();
        worker.retired = true;
        process.kill();
      }
    },
  });
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  /** Set once the process said it is ready or its start failed: it is told to the pool once. */
  let startSettled = false;
  // Told at once, before the pool's own exit listener decides whether to start another in its place.
  const failedStart = () => {
    if (startSettled) return;
    startSettled = true;
    hooks.onFailedStart();
  };
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      worker.retired = true;
      failedStart();
      process.kill();
      reject(new Error(`the tool process did not start within ${startTimeoutMs} ms`));
    }, startTimeoutMs);
    const stopListening = process.onMessage((message) => {
      if (HostReplySchema.safeParse(message).data?.type !== 'ready') return;
      clearTimeout(timer);
      stopListening();
      startupStderr = undefined;
      startSettled = true;
      worker.started = true;
      hooks.onReady();
      resolve();
    });
    process.onExit((exit) => {
      clearTimeout(timer);
      failedStart();
      const said = startupStderr?.length ? `; it said: ${startupStderr.join(' / ')}` : '';
      reject(new Error(`the tool process exited before it was ready (${describeExit(exit)})${said}`));
    });
  });
  // A process nobody waits for yet (a spare) fails its start quietly: the pool was told above.
  ready.catch(() => {});
  // Each message is checked once and handed to the call it names; a malformed one to every call.
  process.onMessage((message) => {
    if (worker.replies.size === 0) return;
    const parsed = HostReplySchema.safeParse(message);
    if (!parsed.success) {
      for (const listener of [...worker.replies.values()]) listener(undefined);
    } else if (parsed.data.type !== 'ready') {
      worker.replies.get(parsed.data.callId)?.(parsed.data);
    }
  });
  worker = { process, ready, isolation, profile: profileName, callId: undefined, exited: undefined, retired: false, logBytes: 0, replies: new Map(), overLimit: new Set(), calls: 0, joins: 0 };
  return worker;
}
