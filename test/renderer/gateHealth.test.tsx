import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { GateDiagnostics } from '../../shared/contract';
import { GateHealthView } from '../../renderer/views/settings/GateHealth';
import { markupText } from './markupText';

// The gate's health as Settings shows it, rendered to HTML on the server.

function health(p99: number): GateDiagnostics {
  return {
    rssBytes: 112 * 1024 * 1024,
    heapUsedBytes: 41.5 * 1024 * 1024,
    eventLoopLagMs: { p50: 0.4, p99, max: p99 * 2 },
    windowSeconds: 60.2,
    uptimeSeconds: 3600,
  };
}

describe("the gate's health in Settings", () => {
  it('shows its memory and event-loop lag in the units a person reads', () => {
    const text = markupText(<GateHealthView health={health(3.2)} />);
    expect(text).toContain('112.0 MB resident, 41.5 MB of it JavaScript heap');
    expect(text).toContain('0.4 ms typical, 3.2 ms at p99, 6.4 ms at most, over the last 60 s');
    expect(renderToStaticMarkup(<GateHealthView health={health(3.2)} />)).not.toContain('health-warning');
  });

  it('marks a lag past 20 ms at p99, the one every answer waits on', () => {
    expect(renderToStaticMarkup(<GateHealthView health={health(45)} />)).toContain('health-warning');
  });
});
