import type { ToolError } from '../../shared/errors';
import { sampleTree } from './processTree';
import type { HealthRequest, HostReply, RunRequest } from './protocol';
import type { ToolProcess, ToolProcessExit } from './toolProcess';
import type { CallLimits, CallUsage, Isolation, RunOutcome } from './toolCall';

/**
 * One call in one tool process, watched until it ends: its deadline (SIGTERM, then SIGKILL: ETIMEOUT),
 * its tree's memory and processes (sampled, or held by the kernel's cgroup: EQUOTA), its messages
 * (a malformed one kills it: ECRASH), its output streamed to the console, and a withdrawal (EDENIED).
 */

const MIB = 1024 * 1024;

/** A process of the pool, with what the pool knows of it. */
export interface PoolWorker {
  readonly process: ToolProcess;
  readonly ready: Promise<void>;
  readonly isolation: Isolation;
  /** The name of the sandbox profile it was started for (profileName). */
  readonly profile: string;
  /** The call the process serves, or served last. */
  callId: string | undefined;
  exited: ToolProcessExit | undefined;
  /** Killed by the pool (deadline, quota, bad message): never reused, even before its exit arrives. */
  retired: boolean;
  /** Bytes of stdout/stderr written since it last took a call while serving none. */
  logBytes: number;
  /**
   * Each call it serves, by call id, told its process's messages about it (parsed once, however many
   * calls share the process); every one is told of a malformed message (undefined).
   */
  readonly replies: Map<string, (reply: CallReply | undefined) => void>;
  /** Told, for each call it serves, when they broke the output limit; its process is being killed. */
  readonly overLimit: Set<() => void>;
  /** The calls it serves now: more than one only while they all share it (CallLimits.mayShare). */
  calls: number;
  /** The memory bound, in MiB, of the calls sharing it; undefined while it serves a call that shares nothing. */
  sharedBy?: number;
  /** Calls that joined it while it served others, ever: a call that saw this change shared its process. */
  joins: number;
  /** It said it is ready: only then may calls join one it serves (its start failing would fail them all). */
  started?: boolean;
  /** The kernel's count of OOM kills in the process's cgroup when its last call ended (read once per call). */
  oomKills?: number;
  /** The kernel's count of processes and threads it refused the process's cgroup, when last read. */
  forksRefused?: number;
  /** Its last call ran only the gate's own code (CallLimits.startsNothing): it left no process to hunt. */
  startedNothing?: boolean;
  /** It has served a call or check that ran code other than the gate's own: no later call of it is taken to start nothing. */
  ranOtherCode?: boolean;
  /** The call whose stderr end marker was read last (see stderrEndMarker). */
  stderrEndedFor?: string;
  /** Told when the current call's stderr end marker is read. */
  onStderrEnd?: () => void;
}

/** A tool process's message about one call. */
export type CallReply = Exclude<HostReply, { type: 'ready' }>;

/** How long an answer waits for its call's stderr to be read to the end marker before it goes anyway. */
const STDERR_DRAIN_MS = 2000;

/** Resolves once the call's stderr was read to its end marker, or after STDERR_DRAIN_MS. */
function stderrRead(worker: PoolWorker, callId: string): Promise<void> {
  if (worker.stderrEndedFor === callId) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, STDERR_DRAIN_MS);
    function done() {
      clearTimeout(timer);
      worker.onStderrEnd = undefined;
      resolve();
    }
    worker.onStderrEnd = done;
  });
}

/** The pool's limits and hooks every call is held to. */
export interface SupervisionRules {
  /** Between SIGTERM and SIGKILL at a deadline. */
  graceMs: number;
  /** Processes one call's tree may hold at once. */
  maxProcesses: number;
  /** Bytes of stdout and stderr one call may write (enforced by the pool; named in the error here). */
  maxLogBytes: number;
  /** How often a running call's tree is sampled. */
  sampleIntervalMs: number;
  /** Receives each piece of output a running call streams. */
  onOutput?: (callId: string, chunk: string) => void;
}

/** Runs `request` on a worker's process and settles once the call has ended, one way or another. */
export async function superviseCall(
worker: PoolWorker,
request: RunRequest | HealthRequest,
tool: string,
limits: CallLimits,
rules: SupervisionRules,
signal?: AbortSignal,
): Promise<RunOutcome> {
  // What the last call left open on a log line is that call's, not this one's (whose agent would hear it).
  // A call joining others in a shared process leaves their lines and their output count alone, and
  // what the process writes from then on is no one call's.
  const sharedAtStart = worker.calls > 1;
  if (!sharedAtStart) {
    worker.process.endLogLines?.();
    worker.logBytes = 0;
  }
  worker.callId = sharedAtStart ? undefined : request.callId;
  const joinsAtStart = worker.joins;
  try {
    await worker.ready;
  } catch (error) {
    return { ok: false, error: { code: 'ECRASH', message: (error as Error).message } };
  }
  const { process } = worker;
  const { graceMs: grace, maxProcesses, maxLogBytes } = rules;
  const limitBytes = limits.maxMemoryMb * MIB;
  return new Promise<RunOutcome>((resolve) => {
    const startedAt = performance.now();
    const usage: CallUsage = { peakResidentBytes: 0, peakProcesses: 0 };
    // Where a cgroup can be had, the kernel holds the tree to its bound; sampling reports the peak.
    const kernelHoldsMemory = process.setMemoryLimit(limitBytes);
    // Between calls the host sits idle (killStrays ended anything a call left): the count its last
    // call ended with stands for the start of this one, and the cgroup is read once per call, not twice.
    const oomKillsBefore = (worker.oomKills ??= process.memoryEvents()?.oomKills ?? 0);
    /** EQUOTA when the kernel killed part of the tree for passing the memory bound during this call. */
    const killedForMemory = (): ToolError | undefined => {
      const events = process.memoryEvents();
      if (events) worker.oomKills = events.oomKills;
      if (!events || events.oomKills <= oomKillsBefore) return undefined;
      return {
        code: 'EQUOTA',
        message: `${tool} reached its ${limits.maxMemoryMb} MiB memory bound and the kernel stopped it`,
        details: { maxMemoryMb: limits.maxMemoryMb, peakMemoryMb: Math.round(events.peakBytes / MIB), enforcedBy: 'cgroup' },
      };
    };
    const forksRefusedBefore = (worker.forksRefused ??= process.forksRefused() ?? 0);
    /**
     * EQUOTA when the kernel refused the tree a process or thread at its task limit during this call:
     * a fork bomb that hits the wall and dies out between two samples, or threads (which sampling,
     * counting processes, does not see), past the limit all the same.
     */
    const refusedForks = (): ToolError | undefined => {
      const refused = process.forksRefused();
      if (refused === undefined) return undefined;
      worker.forksRefused = refused;
      if (refused <= forksRefusedBefore) return undefined;
      return {
        code: 'EQUOTA',
        message: `${tool} tried to start more processes or threads than its tree may hold; the kernel refused them, and it was killed with all it started`,
        // The most processes sampled at once (tasks past the wall were refused: it never held more than pids.max).
        details: { maxProcesses, processes: usage.peakProcesses, enforcedBy: 'cgroup' },
      };
    };
    /** The kernel's verdict on the call, where it held the tree to a bound: memory, or processes. */
    const kernelVerdict = () => killedForMemory() ?? refusedForks();
    let settled = false;
    let verdict: ToolError | undefined;
    /** The verdict is this call's own doing whoever else the process served: its withdrawal, or its deadline while alone. */
    let verdictIsOwn = false;
    /** The process served other calls when it was stopped: they may answer before it is gone, and it stays no one's doing. */
    let stoppedShared = false;
    /** Withdrawn while it shared its process: it holds its place and deadline until its work ends, then answers EDENIED. */
    let withdrawnShared = false;
    const withdrawnAnswer: RunOutcome = { ok: false, error: { code: 'EDENIED', message: `${tool} was withdrawn before it finished; it changed nothing` } };
    const settle = (outcome: RunOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearInterval(sampler);
      if (worker.replies.get(request.callId) === onReply) worker.replies.delete(request.callId);
      stopExit();
      worker.overLimit.delete(overLimit);
      signal?.removeEventListener('abort', withdraw);
      // Calls shorter than one sampling interval have no usage to report, nor one that shared its
      // process: the peak was its neighbours' as much as its own.
      const alone = !sharedAtStart && worker.joins === joinsAtStart;
      resolve(usage.peakProcesses > 0 && alone ? { ...outcome, usage } : outcome);
    };
    /** Ends the call with `error` once its process is dead, so nothing of it outlives the result. */
    const stop = (error: ToolError, own = false) => {
      if (verdict) return;
      verdict = error;
      verdictIsOwn = own;
      stoppedShared = worker.calls > 1;
      worker.retired = true;
      process.kill();
    };
    const withdraw = () => {
      // A call sharing its process runs only the gate's own Pure code, which changes nothing and ends
      // soon: it is let finish, unheard, and the process serves the others on. It keeps its place and
      // its deadline until then, so withdrawn work never piles up in a process beyond its bounds.
      if (worker.calls > 1 && !verdict) {
        withdrawnShared = true;
        return;
      }
      stop({ code: 'EDENIED', message: `${tool} was stopped before it finished (the call was withdrawn); its process was killed` }, true);
    };
    const overLimit = () =>
      stop({
        code: 'EQUOTA',
        message: `${tool} wrote more than ${formatBytes(maxLogBytes)} to stdout and stderr and was killed; write less, or return data instead`,
        details: { limitBytes: maxLogBytes },
      });
    worker.overLimit.add(overLimit);
    const deadline = setTimeout(() => {
      if (verdict) return;
      // In a shared process its time went to its neighbours' work as well as its own: no one of them
      // is blamed, and each is run again alone, where its deadline is its own.
      if (worker.calls > 1) return stop({ code: 'ETIMEOUT', message: `${tool} ran past its deadline in a process it shared` });
      const deadlineAt = performance.now();
      verdict = { code: 'ETIMEOUT', message: '' };
      verdictIsOwn = true;
      worker.retired = true;
      void process.terminate(grace).then((signal) => {
        const ranMs = Math.round(performance.now() - startedAt);
        settle({
          ok: false,
          error: {
            code: 'ETIMEOUT',
            message: `${tool} ran past its ${limits.timeoutMs} ms deadline and was stopped after ${ranMs} ms (${signal === 'SIGKILL' ? `it ignored SIGTERM, so it was killed ${grace} ms later` : 'it ended on SIGTERM'})`,
            details: { timeoutMs: limits.timeoutMs, ranMs, endedBy: signal, deadlineToDeadMs: Math.round(performance.now() - deadlineAt) },
          },
        });
      });
    }, limits.timeoutMs);
    const sampler = setInterval(() => {
      const pid = process.pid;
      if (pid === undefined || verdict) return;
      const sample = sampleTree(pid, maxProcesses + 8);
      usage.peakResidentBytes = Math.max(usage.peakResidentBytes, sample.residentBytes);
      usage.peakProcesses = Math.max(usage.peakProcesses, sample.processes);
      const refused = refusedForks();
      if (refused) return stop(refused);
      // With a kernel limit the kernel stops the tree at its bound (and says so); sampling only reports.
      if (!kernelHoldsMemory && sample.residentBytes > limitBytes) {
        stop({
          code: 'EQUOTA',
          message: `${tool} used ${formatBytes(sample.residentBytes)} of memory, more than its ${limits.maxMemoryMb} MiB bound, and was killed`,
          details: { maxMemoryMb: limits.maxMemoryMb, peakMemoryMb: Math.round(sample.residentBytes / MIB), enforcedBy: 'sampling' },
        });
      } else if (sample.processes > maxProcesses) {
        stop({
          code: 'EQUOTA',
          message: `${tool} started more than ${maxProcesses} processes at once and was killed with all of them`,
          details: { maxProcesses, processes: sample.processes },
        });
      }
    }, rules.sampleIntervalMs);
    const onReply = (answer: CallReply | undefined) => {
      if (verdict) return;
      if (!answer) {
        stop({ code: 'ECRASH', message: `${tool}'s process sent a malformed message and was killed` });
        return;
      }
      if (answer.type === 'output') {
        if (request.type === 'run') rules.onOutput?.(request.callId, answer.chunk);
        return;
      }
      // A tool whose child the kernel killed for memory, or refused a process, may still answer: the
      // call broke its bound all the same. A call that starts nothing has no child to lose or start
      // (its own process dying is an exit).
      const boundVerdict = limits.startsNothing ? undefined : kernelVerdict();
      if (boundVerdict) return stop(boundVerdict);
      if (answer.type === 'health') {
        if (request.type !== 'health') return;
        settle({ ok: true, data: { healthy: answer.healthy, ...(answer.message ? { message: answer.message } : {}) } });
      } else if (request.type === 'run') {
        if (withdrawnShared) return settle(withdrawnAnswer);
        const outcome: RunOutcome = answer.ok ? { ok: true, data: answer.data } : { ok: false, error: answer.error };
        // Its log lines first: a line read after the answer would reach no agent, or the next call's.
        // A call that ran only the gate's own code wrote none, and its process sends no end marker.
        if (limits.startsNothing) settle(outcome);
        else void stderrRead(worker, request.callId).then(() => settle(outcome));
      }
    };
    worker.replies.set(request.callId, onReply);
    const stopExit = process.onExit((exit) => {
      // Its own deadline settles it once the process is gone (terminate, above).
      if (verdict?.code === 'ETIMEOUT' && verdictIsOwn) return;
      if (withdrawnShared) return settle(withdrawnAnswer);
      // The process served other calls too: its memory, its processes, its output and its end are
      // theirs as much as this call's, so none of them is blamed. Each is run again in a process of
      // its own, where what it does is its own (only calls that change nothing share a process).
      if ((worker.calls > 1 || stoppedShared) && !verdictIsOwn) {
        return settle({ ok: false, error: { code: 'ECRASH', message: `${tool}'s process ended while it served other calls too (${describeExit(exit)})` }, runAlone: true });
      }
      if (verdict) return settle({ ok: false, error: verdict });
      const boundVerdict = kernelVerdict();
      if (boundVerdict) return settle({ ok: false, error: boundVerdict });
      if (exit.reason === 'refused') {
        return settle({ ok: false, error: { code: 'EQUOTA', message: `${tool}'s process was killed: ${exit.detail}`, details: exit } });
      }
      settle({
        ok: false,
        error: { code: 'ECRASH', message: `${tool}'s process died mid-call (${describeExit(exit)})`, details: exit },
      });
    });
    // Withdrawn before it was sent: nothing ran, and the process is left as it is.
    if (signal?.aborted) return settle(withdrawnBeforeStart(tool));
    signal?.addEventListener('abort', withdraw, { once: true });
    process.send(request);
  });
}

/** The outcome of a call withdrawn before its process got it: nothing of it ran. */
export function withdrawnBeforeStart(tool: string): RunOutcome {
  return { ok: false, error: { code: 'EDENIED', message: `${tool} was withdrawn before it started; it did not run` } };
}

/** A size as the messages say it: MiB from one MiB up, KiB below. */
function formatBytes(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** Why a process ended, as the messages say it. */
export function describeExit(exit: ToolProcessExit): string {
  if (exit.reason === 'refused') return exit.detail;
  if (exit.reason !== 'crashed') return exit.reason;
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}
