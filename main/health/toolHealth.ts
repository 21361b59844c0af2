import { GateError } from '../../shared/errors';
import { parseHealthReport, type HealthStatus, type ToolHealth } from '../../shared/health';
import type { RegisteredTool } from '../registry/registry';

/** How often every tool is checked again: 5 minutes. */
export const DEFAULT_HEALTH_INTERVAL_MS = 5 * 60_000;
/** How long one probe may take before the tool counts as unhealthy: 10 seconds. */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** How a ToolHealthMonitor is built. */
export interface ToolHealthMonitorOptions {
  /**
   * Asks one tool whether it is healthy: in a tool process, initialize() then healthCheck(). A tool
   * without healthCheck is healthy once initialize() succeeded; the probe decides that, not the monitor.
   * Undefined means the check could not be made now (every tool process busy): the last verdict stands.
   */
  probe: (tool: RegisteredTool) => Promise<HealthStatus | undefined>;
  /** The tools to watch, read at every round so added and removed tools are followed. */
  tools: () => RegisteredTool[];
  /** Time between rounds of checks; 5 minutes by default. */
  intervalMs?: number;
  /** Time one probe may take before the tool counts as unhealthy; 10 seconds by default. */
  probeTimeoutMs?: number;
  /** Told when a tool's health state or message changed. */
  onChange?: (name: string) => void;
}

const UNKNOWN: ToolHealth = Object.freeze({ state: 'unknown' });

/** A duration as people say it: 10 s, 5 min. */
function spoken(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6_000) / 10} min`;
}

/**
 * Keeps each tool's health: checks every tool at start() and then every intervalMs, and one tool on
 * demand. A probe that throws, answers nonsense or takes longer than probeTimeoutMs makes the tool
 * unhealthy with that reason (fail closed). A tool is available unless its latest check found it
 * unhealthy: one not checked yet stays callable, so a gate that just started does not refuse work.
 */
export class ToolHealthMonitor {
  private readonly health = new Map<string, ToolHealth>();
  private readonly inFlight = new Map<string, Promise<ToolHealth>>();
  private readonly intervalMs: number;
  private readonly probeTimeoutMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  private signalClosed!: () => void;
  private readonly closedSignal = new Promise<void>((resolve) => {
    this.signalClosed = resolve;
  });

  constructor(private readonly options: ToolHealthMonitorOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
    this.probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  }

  /** Checks every tool now and then every intervalMs (the timer does not keep the process alive). */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.timer) {
      this.timer = setInterval(() => void this.checkAll(), this.intervalMs);
      this.timer.unref?.();
    }
    return this.checkAll();
  }

  /** Checks every registered tool (concurrently) and forgets tools no longer registered. Never rejects. */
  async checkAll(): Promise<void> {
    if (this.closed) return;
    const tools = this.options.tools();
    const names = new Set(tools.map((entry) => entry.tool.manifest.name));
    for (const name of [...this.health.keys()]) if (!names.has(name)) this.health.delete(name);
    await Promise.all(tools.map((entry) => this.checkTool(entry)));
  }

  /** Checks one tool now; a check already under way for it is shared, not repeated. */
  async check(name: string): Promise<ToolHealth> {
    const entry = this.options.tools().find((candidate) => candidate.tool.manifest.name === name);
    if (!entry) throw new GateError('ENOTFOUND', `no tool named ${name} is registered, so its health cannot be checked`);
    return this.checkTool(entry);
  }

  /** The latest verdict on a tool; unknown before its first check ends. */
  status(name: string): ToolHealth {
    return this.health.get(name) ?? UNKNOWN;
  }

  /** Whether calls may reach the tool: false only once a check found it unhealthy. */
  isAvailable(name: string): boolean {
    return this.status(name).state !== 'unhealthy';
  }

  /** Why calls of a tool are refused, in one sentence for the agent and the person; undefined when available. */
  unavailableReason(name: string): string | undefined {
    const health = this.status(name);
    if (health.state !== 'unhealthy') return undefined;
    return (
      `${name} is unavailable: ${health.message ?? 'its health check failed'}; ` +
      `it was last checked at ${health.checkedAt ?? 'an unknown time'}; ` +
      `fix what that says and the tool is back at the next check (within ${spoken(this.intervalMs)}), or restart the gate`
    );
  }

  /** Stops the periodic checks; checks under way end at once with what was known. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.signalClosed();
  }

  private checkTool(entry: RegisteredTool): Promise<ToolHealth> {
    const name = entry.tool.manifest.name;
    if (this.closed) return Promise.resolve(this.status(name));
    const running = this.inFlight.get(name);
    if (running) return running;
    const check = this.probeOnce(entry).then((verdict) => {
      if (this.closed) return this.status(name);
      return this.record(name, verdict);
    });
    const tracked = check.finally(() => {
      if (this.inFlight.get(name) === tracked) this.inFlight.delete(name);
    });
    this.inFlight.set(name, tracked);
    return tracked;
  }

  /** One probe, bounded by the timeout and by close(); whatever goes wrong is an unhealthy verdict. */
  private async probeOnce(entry: RegisteredTool): Promise<HealthStatus | undefined> {
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<HealthStatus>((resolve) => {
      timeout = setTimeout(
        () => resolve({ healthy: false, message: `its health check did not answer within ${spoken(this.probeTimeoutMs)}` }),
        this.probeTimeoutMs,
      );
      timeout.unref?.();
    });
    const probed = (async (): Promise<HealthStatus | undefined> => {
      try {
        const report = await this.options.probe(entry);
        return report === undefined ? undefined : parseHealthReport(report);
      } catch (error) {
        return { healthy: false, message: `its health check failed: ${(error as Error)?.message ?? String(error)}` };
      }
    })();
    try {
      return await Promise.race([probed, timedOut, this.closedSignal.then(() => undefined)]);
    } finally {
      clearTimeout(timeout);
    }
  }

  private record(name: string, verdict: HealthStatus | undefined): ToolHealth {
    if (!verdict) return this.status(name);
    const before = this.status(name);
    const after: ToolHealth = Object.freeze({
      state: verdict.healthy ? 'healthy' : 'unhealthy',
      ...(verdict.message ? { message: verdict.message } : {}),
      checkedAt: new Date().toISOString(),
    });
    this.health.set(name, after);
    if (before.state !== after.state || before.message !== after.message) {
      try {
        this.options.onChange?.(name);
      } catch {
        // a listener belongs to the shell; the monitor goes on
      }
    }
    return after;
  }
}
