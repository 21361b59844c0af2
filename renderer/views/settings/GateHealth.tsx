import { useCallback, useEffect, useState } from 'react';
import type { GateDiagnostics } from '../../../shared/contract';
import { describe } from '../../store/consoleSync';
import { useConsoleState, useConsoleSync } from '../consoleContext';
import { ProblemNote } from '../common/ProblemNote';

/** How often the health is asked for again while Settings is shown. */
const REFRESH_MS = 2_000;

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
const milliseconds = (ms: number) => `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;

/** The health figures as a person reads them; a lag past 20 ms is one an agent's every answer waits on. */
export function GateHealthView({ health }: { health: GateDiagnostics }) {
  const lag = health.eventLoopLagMs;
  return (
    <dl className="gate-health" data-testid="gate-health">
      <div>
        <dt>Memory</dt>
        <dd data-testid="gate-rss">
          {megabytes(health.rssBytes)} resident, {megabytes(health.heapUsedBytes)} of it JavaScript heap
        </dd>
      </div>
      <div>
        <dt>Event-loop lag</dt>
        <dd data-testid="gate-lag" className={lag.p99 > 20 ? 'health-warning' : undefined}>
          {milliseconds(lag.p50)} typical, {milliseconds(lag.p99)} at p99, {milliseconds(lag.max)} at most, over the last {Math.round(health.windowSeconds)} s
        </dd>
      </div>
      <div>
        <dt>Running for</dt>
        <dd>{Math.round(health.uptimeSeconds)} s</dd>
      </div>
    </dl>
  );
}

/**
 * The gate process's own health (tool processes apart): its memory, and how late its event loop
 * ran, which every agent's answer and every console event waits on. Asked for while shown; "Start
 * over" begins a new window for the lag.
 */
export function GateHealth() {
  const sync = useConsoleSync();
  const shown = useConsoleState((s) => s.view.tab === 'Settings');
  const [health, setHealth] = useState<GateDiagnostics>();
  const [problem, setProblem] = useState<string>();

  const load = useCallback(
    async (reset = false) => {
      try {
        setHealth(await sync.gateDiagnostics(reset));
        setProblem(undefined);
      } catch (error) {
        setProblem(`Could not read the gate's health: ${describe(error)}`);
      }
    },
    [sync],
  );

  useEffect(() => {
    if (!shown) return;
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load, shown]);

  return (
    <section aria-label="Gate health" className="gate-health-panel">
      <h2>Gate health</h2>
      <ProblemNote problem={problem} testId="gate-health-problem" />
      {health ? <GateHealthView health={health} /> : <p className="empty">Reading the gate's health…</p>}
      <button type="button" className="link-button" data-testid="gate-health-reset" onClick={() => void load(true)}>
        Start the lag window over
      </button>
    </section>
  );
}
