import { GateError } from '../../shared/errors';

/** What the scheduler needs to know about one call before it may run. */
export interface CallTicket {
  /** The tool's name; `maxConcurrent` is counted per name. */
  tool: string;
  /** True for tools with write or spawn side effects: those run one at a time (the gate has one workspace). */
  exclusive: boolean;
  /** At most this many calls of this tool run at once; undefined means no per-tool limit. */
  maxConcurrent?: number;
  /** Aborting it while the call waits withdraws the call; once running, the caller handles cancellation. */
  signal?: AbortSignal;
  /** True for tools that start programs (ProcessSpawn): counted while they run (programsRunning). */
  startsPrograms?: boolean;
  /**
   * True for a call whose files the policy judged by their names (read_file's path). A program
   * running beside it could put a link in place of a name between the judgment and the open, so
   * such a call never runs while a program started through the gate does, nor one while it does.
   */
  namesPaths?: boolean;
}

/** Options for a scheduler. */
export interface CallSchedulerOptions {
  /** How many calls may wait at once in total; one more is refused with EQUOTA. */
  maxQueued: number;
}

/** What the console and the tests read. */
export interface SchedulerStats {
  /** Calls whose work is running now. */
  running: number;
  /** Calls waiting for their turn. */
  queued: number;
  /** Whether an exclusive call holds the workspace. */
  exclusiveRunning: boolean;
}

interface Waiter {
  ticket: CallTicket;
  grant: () => void;
  refuse: (error: GateError) => void;
}

/**
 * Decides when each call may run: exclusive calls one at a time in arrival order, every tool within
 * its `maxConcurrent`, everything else at once. Waiting is bounded by `maxQueued`.
 */
export class CallScheduler {
  private readonly maxQueued: number;
  private readonly queue: Waiter[] = [];
  private readonly runningByTool = new Map<string, number>();
  private running = 0;
  private programs = 0;
  /** Calls that started programs and have ended, since the scheduler began (programsEnded). */
  private programsDone = 0;
  /** Running calls whose files were judged by their names. */
  private pathCalls = 0;
  private exclusiveRunning = false;
  private closed = false;

  constructor(options: CallSchedulerOptions) {
    if (!Number.isInteger(options.maxQueued) || options.maxQueued < 0) {
      throw new RangeError(`maxQueued must be a whole number of calls, got ${options.maxQueued}`);
    }
    this.maxQueued = options.maxQueued;
  }

  /** Runs `work` when the ticket's turn comes; its result or error comes back unchanged. */
  run<T>(ticket: CallTicket, work: () => Promise<T>): Promise<T> {
    const { maxConcurrent } = ticket;
    if (maxConcurrent !== undefined && (!Number.isInteger(maxConcurrent) || maxConcurrent < 1)) {
      // A limit below one would leave the call waiting forever.
      return Promise.reject(new RangeError(`maxConcurrent for ${ticket.tool} must be at least 1, got ${maxConcurrent}`));
    }
    if (this.closed) return Promise.reject(shuttingDown());
    if (ticket.signal?.aborted) {
      return Promise.reject(new GateError('EDENIED', 'the call was withdrawn before it started'));
    }
    return new Promise<void>((resolve, reject) => this.enqueue(ticket, resolve, reject)).then(() =>
      this.execute(ticket, work),
    );
  }

  /** Counts for the console. */
  stats(): SchedulerStats {
    return { running: this.running, queued: this.queue.length, exclusiveRunning: this.exclusiveRunning };
  }

  /**
   * How many calls of tools that start programs run now. Such a program may change the workspace at
   * any moment while it runs (replace a file with a link, say); its process tree ends with its call.
   */
  programsRunning(): number {
    return this.programs;
  }

  /** How many calls that start programs wait for their turn. */
  programsWaiting(): number {
    let waiting = 0;
    for (const waiter of this.queue) if (waiter.ticket.startsPrograms) waiting++;
    return waiting;
  }

  /**
   * How many calls that started programs have ended so far. A call judged when it was one number and
   * run when it is another may find its files changed since (a name now a link): it is judged again.
   */
  programsEnded(): number {
    return this.programsDone;
  }

  /** Refuses every waiting and every later call; running calls finish on their own. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.queue.splice(0)) waiter.refuse(shuttingDown());
  }

  private enqueue(ticket: CallTicket, resolve: () => void, reject: (error: GateError) => void): void {
    const onAbort = (): void => {
      if (!this.remove(waiter)) return;
      waiter.refuse(new GateError('EDENIED', 'the call was withdrawn while it waited for its turn'));
      // The withdrawn call may have been what held later ones back.
      this.pump();
    };
    const waiter: Waiter = {
      ticket,
      grant: () => {
        ticket.signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      refuse: (error) => {
        ticket.signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    };
    // Joining at the back and letting pump() decide keeps one rule for "may it start": a newcomer never
    // overtakes a waiter it must queue behind, and since it is last, it changes no one else's turn.
    this.queue.push(waiter);
    ticket.signal?.addEventListener('abort', onAbort, { once: true });
    this.pump();
    if (this.queue.length > this.maxQueued && this.remove(waiter)) {
      const waiting = this.queue.length;
      waiter.refuse(
        new GateError(
          'EQUOTA',
          `${waiting} calls are already waiting for their turn (the limit is ${this.maxQueued}); try again shortly`,
          { queued: waiting, maxQueued: this.maxQueued },
        ),
      );
    }
  }

  private async execute<T>(ticket: CallTicket, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      this.release(ticket);
    }
  }

  /** Starts, in arrival order, every waiter whose slots are free and whose turn it is. */
  private pump(): void {
    // Tools whose earlier limited waiter was skipped: later calls of that tool keep their place behind it.
    const toolsHeldBack = new Set<string>();
    // Set once an exclusive waiter is held back by the workspace, so later exclusive calls cannot starve it.
    let exclusiveHeldBack = false;
    // Set once a waiter that starts programs is held back by calls of named files, so a stream of them cannot starve it.
    let programsHeldBack = false;
    for (let i = 0; i < this.queue.length; ) {
      const waiter = this.queue[i]!;
      const { tool, exclusive, maxConcurrent, startsPrograms, namesPaths } = waiter.ticket;
      const toolHasRoom = maxConcurrent === undefined || (this.runningByTool.get(tool) ?? 0) < maxConcurrent;
      const workspaceFree = !exclusive || (!this.exclusiveRunning && !exclusiveHeldBack);
      // Programs and calls of named files take turns: neither starts while the other kind runs.
      const namesFree = !namesPaths || (this.programs === 0 && !programsHeldBack);
      const programsFree = !startsPrograms || this.pathCalls === 0;
      if (!toolsHeldBack.has(tool) && toolHasRoom && workspaceFree && namesFree && programsFree) {
        // Both slots are taken in one step, so an exclusive call never holds the workspace while it
        // waits for its tool, and a saturated tool never holds the workspace hostage.
        this.queue.splice(i, 1);
        this.acquire(waiter.ticket);
        waiter.grant();
        continue;
      }
      if (maxConcurrent !== undefined) toolsHeldBack.add(tool);
      // Only waiting for the workspace counts here: an exclusive call waiting for its own tool lets
      // other exclusive calls go, and takes the workspace first once its tool frees (it is earlier in line).
      if (exclusive && toolHasRoom) exclusiveHeldBack = true;
      if (startsPrograms && toolHasRoom && workspaceFree && !programsFree) programsHeldBack = true;
      i++;
    }
  }

  private acquire(ticket: CallTicket): void {
    this.running++;
    this.runningByTool.set(ticket.tool, (this.runningByTool.get(ticket.tool) ?? 0) + 1);
    if (ticket.exclusive) this.exclusiveRunning = true;
    if (ticket.startsPrograms) this.programs++;
    if (ticket.namesPaths) this.pathCalls++;
  }

  private release(ticket: CallTicket): void {
    this.running--;
    const left = (this.runningByTool.get(ticket.tool) ?? 1) - 1;
    if (left > 0) this.runningByTool.set(ticket.tool, left);
    else this.runningByTool.delete(ticket.tool);
    if (ticket.exclusive) this.exclusiveRunning = false;
    if (ticket.startsPrograms) {
      this.programs--;
      this.programsDone++;
    }
    if (ticket.namesPaths) this.pathCalls--;
    this.pump();
  }

  private remove(waiter: Waiter): boolean {
    const index = this.queue.indexOf(waiter);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    return true;
  }
}

function shuttingDown(): GateError {
  return new GateError('ECRASH', 'the gate is shutting down');
}
