import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { GateInfo } from '../../shared/contract';
import { formatBytes, formatLimit } from '../../renderer/format/bounds';
import { initialConsoleState, type ConsoleState } from '../../renderer/store/consoleState';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { mergeToolSnapshot } from '../../renderer/store/toolStatuses';
import { App } from '../../renderer/views/App';
import { ConsoleContext } from '../../renderer/views/consoleContext';
import { sandboxWarning } from '../../renderer/views/SandboxBanner';
import { ToolRow } from '../../renderer/views/tools/ToolRow';
import { ToolsView } from '../../renderer/views/tools/ToolsView';
import { fakeBridge } from './fakeBridge';
import { toolStatus } from './fixtures';

// The Tools view and the sandbox banner, rendered to HTML on the server (no DOM needed).

function textOf(element: ReactElement): string {
  return renderToStaticMarkup(element)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

function row(status: ReturnType<typeof toolStatus>): ReactElement {
  return (
    <table>
      <tbody>
        <ToolRow tool={status} />
      </tbody>
    </table>
  );
}

const INFO: GateInfo = { version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 60_000, sandbox: { kind: 'bubblewrap' } };

/** The element inside services whose store starts with `state` (server rendering reads the initial state). */
function withState(element: ReactElement, state: Partial<ConsoleState>): ReactElement {
  const store = createStore<ConsoleState>()(() => ({ ...initialConsoleState('open'), ...state }));
  const sync = new ConsoleSync(fakeBridge({}).bridge, store);
  return <ConsoleContext.Provider value={{ store, sync }}>{element}</ConsoleContext.Provider>;
}

describe('a Tools row', () => {
  it("shows a manifest tool's source, its files with their hashes, and why it is held", () => {
    const manifestSha256 = 'a'.repeat(64);
    const codeSha256 = 'b'.repeat(64);
    const refusal = 'jq_filter changed since it was reviewed: its program /usr/bin/jq changed; review it with `toolgate tools review jq_filter`';
    const status = toolStatus('jq_filter', {
      available: false,
      source: { kind: 'subprocess', manifestPath: '/home/me/.toolgate/tools/jq.json', manifestSha256, codeFile: '/usr/bin/jq', codeSha256, review: 'changed', refusal },
    });
    const html = renderToStaticMarkup(row(status));
    expect(html).toContain('data-kind="subprocess"');
    expect(html).toContain('data-review="changed"');
    const text = textOf(row(status));
    expect(text).toContain('subprocess · changed');
    expect(text).toContain(`/home/me/.toolgate/tools/jq.json ${manifestSha256.slice(0, 12)}`);
    expect(text).toContain(`program /usr/bin/jq ${codeSha256.slice(0, 12)}`);
    expect(text).toContain(refusal);
  });

  it('shows an unhealthy tool as unavailable with its message', () => {
    const status = toolStatus('license_check', {
      available: false,
      health: { state: 'unhealthy', message: 'the license server is unreachable', checkedAt: '2025-01-01T00:00:00.000Z' },
    });
    const html = renderToStaticMarkup(row(status));
    expect(html).toContain('data-available="false"');
    expect(html).toContain('data-health="unhealthy"');
    expect(textOf(row(status))).toContain('unavailable');
    expect(textOf(row(status))).toContain('the license server is unreachable');
    expect(textOf(row(status))).not.toContain('healthy checked');
  });

  it('shows a healthy tool as healthy, and one not checked yet as such', () => {
    expect(textOf(row(toolStatus('echo')))).toMatch(/ healthy checked /);
    expect(textOf(row(toolStatus('echo', { health: { state: 'unknown' } })))).toContain('not checked yet');
  });

  it('shows the declared and the effective tier, and why the effective one is higher', () => {
    const raised = toolStatus('write_file', {
      tier: 'ELEVATED',
      effectiveTier: 'RESTRICTED',
      tierRaisedBecause: 'there is no OS sandbox (bubblewrap) on this machine: bwrap is not installed',
    });
    const html = renderToStaticMarkup(row(raised));
    expect(html.match(/data-testid="tier-badge"/g)).toHaveLength(2);
    expect(textOf(row(raised))).toContain('ELEVATED RESTRICTED Raised from ELEVATED: there is no OS sandbox (bubblewrap) on this machine: bwrap is not installed');
    expect(renderToStaticMarkup(row(toolStatus('echo')))).not.toContain('tier-raised');
  });

  it('lists side effects, capabilities and bounds, and says when there are none', () => {
    const writer = toolStatus('write_file', {
      sideEffects: ['FsRead', 'FsWrite'],
      capabilities: ['fs:write:src/**'],
      bounds: { timeoutMs: 30_000, maxMemoryMb: 256, maxOutputBytes: 16 * 1024, network: { maxRequests: 1, maxBytes: 1_572_864 } },
    });
    const text = textOf(row(writer));
    expect(text).toContain('FsRead FsWrite');
    expect(text).toContain('fs:write:src/**');
    expect(text).toContain('timeout 30 s memory 256 MiB output 16 KiB network 1 request, 1.5 MiB');
    expect(textOf(row(toolStatus('echo')))).toContain('none (pure) none');
  });

  it('shows hidden characters of a tool name and health message as escapes', () => {
    const status = toolStatus('echo', {
      description: 'safe\u202Etxt.exe',
      available: false,
      health: { state: 'unhealthy', message: 'down\u200B' },
    });
    expect(textOf(row(status))).not.toMatch(/[\u202E\u200B]/);
    expect(renderToStaticMarkup(row(status)).match(/class="invisible-char"/g)).toHaveLength(2);
  });
});

describe('the Tools view', () => {
  it('has one row per tool, or says there are none', () => {
    const html = renderToStaticMarkup(withState(<ToolsView />, { tools: [toolStatus('echo'), toolStatus('hash')] }));
    expect(html.match(/data-testid="tool-row"/g)).toHaveLength(2);
    expect(textOf(withState(<ToolsView />, { tools: [] }))).toMatch(/^No tools are registered\. MCP servers /);
  });
});

describe('the sandbox banner', () => {
  it('says plainly that there is no OS sandbox, with the reason, on every tab', () => {
    expect(sandboxWarning({ kind: 'none', reason: 'bwrap is not installed' })).toBe(
      'No OS sandbox: tools run without bubblewrap on this machine, so every tool that reads or writes files or starts programs is treated one tier higher. Bwrap is not installed.',
    );
    const html = renderToStaticMarkup(
      withState(<App />, { info: { ...INFO, sandbox: { kind: 'none', reason: 'user namespaces are disabled.' } } }),
    );
    expect(html).toContain('data-testid="sandbox-banner"');
    expect(textOf(withState(<App />, { info: { ...INFO, sandbox: { kind: 'none' } } }))).toContain(
      'starts programs is treated one tier higher.',
    );
  });

  it('is not shown with bubblewrap, nor before the gate said', () => {
    expect(sandboxWarning({ kind: 'bubblewrap' })).toBeUndefined();
    expect(sandboxWarning(undefined)).toBeUndefined();
    expect(renderToStaticMarkup(withState(<App />, { info: INFO }))).not.toContain('sandbox-banner');
  });

  it('sits next to a Tools tab whose badge counts the unavailable tools', () => {
    const unavailable = toolStatus('license_check', { available: false, health: { state: 'unhealthy', message: 'down' } });
    const html = renderToStaticMarkup(withState(<App />, { info: INFO, tools: [toolStatus('echo'), unavailable] }));
    expect(html).toMatch(/id="tab-tools"[^>]*>Tools <span class="tab-badge">1<\/span>/);
  });
});

describe('tool statuses in the store', () => {
  it('follow toolsChanged events, and a late snapshot does not undo a newer verdict', async () => {
    const stale = toolStatus('echo', { health: { state: 'healthy', checkedAt: '2025-01-01T00:00:00.000Z' } });
    const fresh = toolStatus('echo', {
      available: false,
      health: { state: 'unhealthy', message: 'down', checkedAt: '2025-01-01T00:05:00.000Z' },
    });
    let answer!: (tools: ReturnType<typeof toolStatus>[]) => void;
    const fake = fakeBridge({
      getInfo: async () => INFO,
      listTools: () => new Promise((resolve) => (answer = resolve)),
      listCalls: async () => [],
      listApprovals: async () => [],
      listAudit: async () => [],
      verifyAudit: async () => ({ ok: true, records: 0 }),
    });
    const store = createConsoleStore('open');
    const sync = new ConsoleSync(fake.bridge, store);
    sync.start();
    fake.emit('toolsChanged', [fresh]);
    expect(store.getState().tools).toEqual([fresh]);
    answer([stale, toolStatus('hash')]);
    await vi.waitFor(() =>
      expect(store.getState().tools.map((t) => [t.name, t.health.state])).toEqual([
        ['echo', 'unhealthy'],
        ['hash', 'healthy'],
      ]),
    );
    sync.stop();
  });

  it('merge a snapshot by name, keeping only verdicts checked later than the snapshot', () => {
    const older = toolStatus('echo', { health: { state: 'unknown' } });
    const newer = toolStatus('echo', { health: { state: 'healthy', checkedAt: '2025-01-01T00:00:01.000Z' } });
    expect(mergeToolSnapshot([older], [newer])).toEqual([newer]);
    expect(mergeToolSnapshot([newer], [older])).toEqual([newer]);
    expect(mergeToolSnapshot([newer], [])).toEqual([]);
  });
});

describe('bounds formatting', () => {
  it('reads as people say it', () => {
    expect(formatLimit(30_000)).toBe('30 s');
    expect(formatLimit(300_000)).toBe('5 min');
    expect(formatLimit(1_500)).toBe('1.5 s');
    expect(formatLimit(250)).toBe('250 ms');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(16 * 1024)).toBe('16 KiB');
    expect(formatBytes(256 * 1024 * 1024)).toBe('256 MiB');
  });
});
