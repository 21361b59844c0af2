import { GateError } from '../../shared/errors';
import { countOf, nounFor } from '../../shared/plural';
import { superviseCall, withdrawnBeforeStart, type PoolWorker, type SupervisionRules } from './callSupervisor';
import { READ_ONLY_PROFILE, type ToolProcessPoolOptions } from './poolOptions';
import { startPoolWorker } from './poolWorkerStart';
import type { HealthRequest, RunRequest } from './protocol';
import type { SandboxProfile } from './sandbox';
import { viewSandboxRoot, type SandboxRootView } from './sandboxRootView';
import { joinShared, sharedBound, sharedWith } from './sharedProcesses';
import { profileName, SpareDemand } from './spareDemand';
import type { CallLimits, Isolation, RunOutcome } from './toolCall';

const MIB = 1024 * 1024;

interface Waiter {
  isolation: Isolation;
  profile: SandboxProfile;
  /** The memory bound of a call that may share its process (CallLimits.mayShare). */
  sharedBy?: number;
  /** Gives the waiting call its process, or nothing when the pool closed. */
  hand(worker: PoolWorker | undefined): void;
}

/**
 * Warm tool processes, kept per sandbox profile: one call at a time each, or up to
 * MAX_SHARED_CALLS at once of the gate's own code that changes nothing (sharedProcesses.ts). A call
 * past its deadline is stopped (SIGTERM, then SIGKILL) with its whole tree (ETIMEOUT); one that
 * breaks a memory, process, output or message limit is killed (EQUOTA); a process that dies mid-call
 * fails that call only (ECRASH), and the calls that shared it with it are run again alone. Either
 * way a fresh process takes its place.
 */
export class ToolProcessPool {
  private readonly workers = new Set<PoolWorker>();
  private readonly idle: PoolWorker[] = [];
  private readonly waiting: Waiter[] = [];
  private closed = false;
  private spawned = 0;
  /** Processes in a row that died before they were ready: past a few, no more are started ahead of need. */
  private failedStarts = 0;
  /** Which profiles keep a spare process, when the pool keeps spares. */
  private readonly demand: SpareDemand | undefined;
  /** Ends the spares of profiles no one asked for in a while. */
  private readonly trimmer: ReturnType<typeof setInterval> | undefined;
  /** Set while a replenishment is scheduled, so a burst of calls schedules one. */
  private replenishing = false;
  /** Set once the first call started the rest of the pool's warm processes. */
  private filled = false;
  /** The profile of the processes started ahead of any call. */
  private readonly warmProfile: SandboxProfile;

  constructor(private readonly options: ToolProcessPoolOptions) {
    // One process is started ahead of any call, the rest of the pool when the first call comes
    // (fill): a gate that only relays upstream servers holds one idle process, not `size` of them.
    this.warmProfile = options.warmProfile ?? READ_ONLY_PROFILE;
    if (options.warmAtStart ?? true) this.warm();
    if (options.spares && options.spares.spares > 0) {
      this.demand = new SpareDemand(options.spares);
      this.trimmer = setInterval(() => this.trimSpares(), Math.max(1000, options.spares.idleMs / 2));
      this.trimmer.unref();
    }
  }

  /** Starts the first process ahead of any call, unless one was started already (or the pool closed). */
  warm(): void {
    if (this.spawned === 0 && this.options.size > 0 && !this.closed) this.idle.push(this.spawnWarm());
  }

  /**
   * Says a call of this profile is coming (a write waiting for its approval): a spare process of it
   * starts now, if the pool keeps spares, so the call does not wait for its sandbox.
   */
  expect(profile: SandboxProfile): void {
    if (!this.demand) return;
    this.demand.note(profile);
    this.replenishSoon();
  }

  /**
   * Runs one call in a free process of its profile; never throws for the tool's sake, only when the
   * pool is closed or full. `signal` stops a running call: its process is killed (EDENIED).
   * `beforeSend` runs once the process is taken and before the call is sent to it: work that must
   * come before the tool runs (the workspace's scan for undo) overlaps a fresh sandbox's start.
   */
  async run(
    request: Omit<RunRequest, 'type'>,
    limits: CallLimits,
    profile: SandboxProfile = READ_ONLY_PROFILE,
    signal?: AbortSignal,
    beforeSend?: () => void,
  ): Promise<RunOutcome> {
    const isolation = this.isolation(profile);
    if (isolation.refusal) return { ok: false, error: isolation.refusal };
    this.fill();
    this.demand?.note(profile);
    const outcome = await this.runIn(isolation, profile, request, limits, sharedBound(limits, isolation), signal, beforeSend);
    if (!outcome.runAlone) return outcome;
    if (signal?.aborted) return { ok: false, error: { code: 'EDENIED', message: `${request.tool} was withdrawn before it could run again; it changed nothing` } };
    // Alone, nothing ends its process but what it does itself: this run's outcome is its own.
    return this.runIn(isolation, profile, request, limits, undefined, signal, undefined, true);
  }

  /** Runs a call in a process of `isolation`: one it shares with calls under way when it may (`sharedBy`, sharedBound), else a free one. */
  private async runIn(
    isolation: Isolation,
    profile: SandboxProfile,
    request: Omit<RunRequest, 'type'>,
    limits: CallLimits,
    sharedBy: number | undefined,
    signal?: AbortSignal,
    beforeSend?: () => void,
    again = false,
  ): Promise<RunOutcome> {
    if (signal?.aborted) return withdrawnBeforeStart(request.tool);
    // It joins a process at once only when no call waits: one that waits (for a process of its own,
    // or for room in a shared one) goes first, and shared processes drain for it.
    const joined = sharedBy === undefined || this.waiting.length > 0 ? undefined : sharedWith(this.workers, isolation.key, sharedBy);
    if (joined) joinShared(joined);
    // A call run again already had its place in the queue: it is not refused for a full one.
    const worker = joined ?? (await this.acquire(isolation, profile, again, sharedBy, signal));
    // The process taken may have been the profile's spare: another starts once this call is on its way.
    this.replenishSoon();
    let outcome: RunOutcome;
    let sandboxRoot: SandboxRootView | undefined;
    try {
      beforeSend?.();
      // Only a process that never ran other code takes a call's word that it starts nothing: a tool
      // served earlier may have left code behind (a timer, a patched global) that acts during it.
      const startsNothing = limits.startsNothing === true && !worker.ranOtherCode;
      if (!startsNothing) worker.ranOtherCode = true;
      worker.startedNothing = startsNothing;
      outcome = await superviseCall(worker, { type: 'run', ...request, ...(startsNothing ? { startsNothing } : {}) }, request.tool, { ...limits, startsNothing }, this.rules(), signal);
      // A call to be run again is judged after that run, not this one.
      if (!isolation.afterCall || outcome.runAlone) return outcome;
      sandboxRoot = isolation.singleUse ? viewSandboxRoot(worker) : undefined;
      await this.quiet(worker, isolation);
    } finally {
      this.release(worker);
    }
    return isolation.afterCall(request.tool, outcome, sandboxRoot);
  }

  /**
   * Makes sure nothing of the call still runs before what it left is judged: a single-use sandbox
   * is ended whole (its init, its /tmp and /dev/shm go with it); a reused one loses its strays.
   */
  private async quiet(worker: PoolWorker, isolation: Isolation): Promise<void> {
    if (!isolation.singleUse) {
      if (!worker.exited && !worker.startedNothing) worker.process.killStrays();
      return;
    }
    worker.retired = true;
    if (worker.exited) return;
    const exited = new Promise<void>((resolve) => worker.process.onExit(() => resolve()));
    worker.process.kill();
    await exited;
  }

  /**
   * Initializes a tool in a process of its profile and asks it for its health. A check waits for a
   * process outside the calls' queue limit; undefined when none came free within `timeoutMs` (the
   * tool was not checked, which says nothing about its health).
   */
  async health(
    request: Omit<HealthRequest, 'type' | 'callId'>,
    timeoutMs: number,
    profile: SandboxProfile = READ_ONLY_PROFILE,
  ): Promise<{ healthy: boolean; message?: string } | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const isolation = this.isolation(profile);
    if (isolation.refusal) return { healthy: false, message: isolation.refusal.message };
    const acquired = this.acquire(isolation, profile, true);
    const worker = await Promise.race([
      acquired,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    if (!worker) {
      // The place in the queue is kept; the process it gets later goes straight back.
      void acquired.then((late) => this.release(late), () => {});
      return undefined;
    }
    try {
      // A check runs the tool's own code: what it started is hunted after it like any call's.
      worker.startedNothing = false;
      worker.ranOtherCode = true;
      const outcome = await superviseCall(
        worker,
        { type: 'health', callId: `health-${request.tool}-${Date.now()}`, ...request },
        request.tool,
        { timeoutMs, maxMemoryMb: 1024 },
        this.rules(),
      );
      if (outcome.ok) return outcome.data as { healthy: boolean; message?: string };
      return { healthy: false, message: outcome.error.message };
    } finally {
      // A check runs the tool's own code too: a single-use sandbox serves no call after it.
      if (isolation.singleUse) await this.quiet(worker, isolation);
      this.release(worker);
    }
  }

  /** Counts for the console and benchmarks. */
  stats(): { processes: number; idle: number; queued: number } {
    return { processes: this.workers.size, idle: this.idle.length, queued: this.waiting.length };
  }

  /** Ends every process. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.trimmer) clearInterval(this.trimmer);
    for (const waiter of this.waiting.splice(0)) waiter.hand(undefined);
    await Promise.all([...this.workers].map((worker) => worker.process.close()));
  }

  private isolation(profile: SandboxProfile): Isolation {
    return this.options.isolate?.(profile) ?? { key: 'bare' };
  }

  private spawnWarm(): PoolWorker {
    return this.spawn(this.isolation(this.warmProfile), this.warmProfile);
  }

  private spawn(isolation: Isolation, profile: SandboxProfile): PoolWorker {
    const worker = startPoolWorker(this.options, isolation, profileName(profile), `toolgate-tool-${++this.spawned}`, {
      onReady: () => {
        this.failedStarts = 0;
        // Calls waiting to share a process may join this one now.
        this.dispatch();
      },
      onFailedStart: () => {
        this.failedStarts++;
      },
    });
    worker.process.onExit((exit) => {
      worker.exited = exit;
      this.workers.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.dispatch();
      // Keep the pool warm, unless processes keep dying before they are ready (then start on demand).
      // A single-use sandbox is never made again: its place goes to a fresh one (or one of the warm profile).
      const successor = worker.isolation.successor?.();
      const [next, nextProfile] = !worker.isolation.singleUse
        ? [worker.isolation, profile]
        : successor && !successor.refusal
          ? [successor, profile]
          : [this.isolation(this.warmProfile), this.warmProfile];
      if (!this.closed && this.live() < this.options.size && this.failedStarts < 3) this.idle.push(this.spawn(next, nextProfile));
      this.replenishSoon();
    });
    this.workers.add(worker);
    return worker;
  }

  /** A process for a call, in arrival order; a call withdrawn while it waits leaves the queue (EDENIED). */
  private acquire(isolation: Isolation, profile: SandboxProfile, unbounded = false, sharedBy?: number, signal?: AbortSignal): Promise<PoolWorker> {
    if (this.closed) return Promise.reject(new GateError('ECRASH', 'the gate is shutting down; no tool can run'));
    if (!unbounded && this.waiting.length >= this.options.maxQueue) {
      return Promise.reject(
        new GateError('EQUOTA', `${countOf(this.waiting.length, 'call')} ${nounFor(this.waiting.length, 'is', 'are')} already waiting for a tool process; try again shortly`),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        isolation,
        profile,
        sharedBy,
        hand: (worker) => {
          signal?.removeEventListener('abort', leave);
          if (worker) resolve(worker);
          else reject(new GateError('ECRASH', 'the gate is shutting down; no tool can run'));
        },
      };
      const leave = () => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(new GateError('EDENIED', 'the call was withdrawn while it waited for a tool process; it did not run'));
        // The calls behind it may go now.
        this.dispatch();
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
      this.dispatch();
    });
  }

  private release(worker: PoolWorker): void {
    // callId stays until the next call: lines the process wrote late still belong to this one.
    worker.calls--;
    // Room in a shared process: the call at the head of the queue may take it.
    if (worker.calls > 0) return this.dispatch();
    worker.sharedBy = undefined;
    if (worker.exited || worker.retired) return this.dispatch();
    const free = () => {
      if (!worker.exited && !worker.retired && !this.closed) this.idle.push(worker);
      this.dispatch();
    };
    // A call that started nothing left nothing to hunt: its process serves the next call at once.
    if (worker.startedNothing) return free();
    // Strays are hunted after the caller has its result (finding them may scan /proc), but before the
    // process serves anyone else, so a call never loses what it started to its predecessor's cleanup.
    setImmediate(() => {
      worker.process.killStrays();
      free();
    });
  }

  /**
   * Hands free processes to waiting calls in arrival order: a process it may share, where the call
   * may share one, else one of the call's profile if idle (the one freed last), else the wait for a
   * busy one once its profile has `size` of them, else a new one while there is room, else an idle
   * one of another profile is ended to make room.
   */
  private dispatch(): void {
    while (this.waiting.length > 0 && !this.closed) {
      const waiter = this.waiting[0]!;
      // A call that may share joins a process serving such calls, where one has room.
      const joined = waiter.sharedBy === undefined ? undefined : sharedWith(this.workers, waiter.isolation.key, waiter.sharedBy);
      if (joined) {
        this.waiting.shift();
        joinShared(joined);
        waiter.hand(joined);
        continue;
      }
      // The one freed last: it runs warm (its caches, its compiled code), where taking the longest idle
      // in turn had every call wake a process that had slept through the one before (p50 2-10 % lower
      // side by side in five of six runs, even in the sixth).
      const at = this.idle.findLastIndex((worker) => worker.isolation.key === waiter.isolation.key);
      let worker: PoolWorker | undefined;
      if (at >= 0) {
        worker = this.idle.splice(at, 1)[0];
      } else if (this.serving(waiter.isolation.key) >= this.options.size) {
        return;
      } else if (this.live() < this.capacity()) {
        worker = this.spawn(waiter.isolation, waiter.profile);
      } else if (this.idle.length > 0) {
        const other = this.idle.shift()!;
        other.retired = true;
        void other.process.close();
        worker = this.spawn(waiter.isolation, waiter.profile);
      }
      if (!worker) return;
      this.waiting.shift();
      // Counted at once, as it leaves the pool's hands: no call may join it before it is the caller's.
      worker.calls++;
      worker.sharedBy = waiter.sharedBy;
      waiter.hand(worker);
    }
  }

  /**
   * How many processes of this isolation will serve a call again once free. A profile has at most
   * the pool's `size` of them: past that, its calls wait for one rather than start another, and the
   * spares' room goes to profiles no process serves (each process holds 80 MB or more, and on a few
   * cores more of one profile add no calls per second).
   */
  private serving(key: string): number {
    let count = 0;
    for (const worker of this.workers) {
      if (worker.isolation.key === key && !worker.retired && !worker.exited && (!worker.isolation.singleUse || this.idle.includes(worker))) count++;
    }
    return count;
  }

  /** Processes that may exist at once: `size`, and the spares. */
  private capacity(): number {
    return this.options.size + (this.demand ? this.options.spares!.spares : 0);
  }

  /**
   * Starts a spare for each profile in demand that no process serves, within capacity. Deferred:
   * starting a process costs the gate's thread a few milliseconds, which the call at hand must not wait for.
   */
  private replenishSoon(): void {
    if (!this.demand || this.replenishing || this.closed) return;
    this.replenishing = true;
    setImmediate(() => {
      this.replenishing = false;
      if (this.closed || this.failedStarts >= 3) return;
      for (const profile of this.demand!.wanted()) {
        if (this.live() >= this.capacity()) return;
        const name = profileName(profile);
        // A reused process serves its profile again once its call ends; a single-use one never does.
        const served = [...this.workers].some(
          (worker) => worker.profile === name && !worker.retired && (!worker.isolation.singleUse || this.idle.includes(worker)),
        );
        if (served) continue;
        const isolation = this.isolation(profile);
        if (!isolation.refusal) this.idle.push(this.spawn(isolation, profile));
      }
    });
  }

  /**
   * Once, at the first call: starts processes of the warm profile until the pool holds `size`, so
   * calls that come together find them ready. Deferred, as replenishSoon is.
   */
  private fill(): void {
    if (this.filled) return;
    setImmediate(() => {
      // Not while processes keep dying before they are ready: a later call fills the pool once they start again.
      if (this.filled || this.closed || this.failedStarts >= 3) return;
      this.filled = true;
      const { key } = this.isolation(this.warmProfile);
      // Spares of other profiles do not count: the warm profile gets its `size`, as the spares keep their room.
      while (this.serving(key) < this.options.size && this.live() < this.capacity()) this.idle.push(this.spawnWarm());
    });
  }

  /** Ends idle processes of profiles no longer in demand, down to the pool's `size`. */
  private trimSpares(): void {
    if (!this.demand || this.closed) return;
    const wanted = new Set(this.demand.wanted().map(profileName));
    // Newest first: the processes started ahead of any call (the warm profile's) are the last to go.
    for (const worker of [...this.idle].reverse()) {
      if (this.live() <= this.options.size) return;
      if (wanted.has(worker.profile)) continue;
      this.idle.splice(this.idle.indexOf(worker), 1);
      worker.retired = true;
      void worker.process.close();
    }
  }

  /** The limits and hooks each call is held to, from the pool's options. */
  private rules(): SupervisionRules {
    return {
      graceMs: this.options.terminateGraceMs ?? 500,
      maxProcesses: this.options.maxProcesses ?? 64,
      maxLogBytes: this.options.maxLogBytesPerCall ?? 4 * MIB,
      sampleIntervalMs: this.options.sampleIntervalMs ?? 20,
      ...(this.options.onOutput ? { onOutput: this.options.onOutput } : {}),
    };
  }

  /** Processes that count against the pool's size (retired ones on their way out do not). */
  private live(): number {
    let count = 0;
    for (const worker of this.workers) if (!worker.retired) count++;
    return count;
  }
}


