import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../shared/explorer';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { ConsoleContext } from '../../renderer/views/consoleContext';
import { ReplayButton, ReplayPanel, versionNote } from '../../renderer/views/audit/ReplayButton';
import { fakeBridge } from './fakeBridge';
import { markupText } from './markupText';

// The Replay button and its verdict rendered to HTML: what a person reads, and whether they can click.

const RECORDED = 'a'.repeat(64);
const REPLAYED = 'b'.repeat(64);

function withServices(element: ReactElement): ReactElement {
  const store = createConsoleStore('open');
  const sync = new ConsoleSync(fakeBridge({}).bridge, store);
  return <ConsoleContext.Provider value={{ store, sync }}>{element}</ConsoleContext.Provider>;
}

function panel(props: Partial<Parameters<typeof ReplayPanel>[0]>): ReactElement {
  return <ReplayPanel running={false} onReplay={() => {}} {...props} />;
}

describe('the Replay button', () => {
  it('is disabled with the reason shown beside it when the call cannot be re-run', () => {
    const reason = 'write_file is not replayable: it declares FsWrite, and re-running it would change things again (files, data or processes)';
    const element = withServices(<ReplayButton callId="c1" replay={{ possible: false, reason }} />);
    expect(renderToStaticMarkup(element)).toMatch(/<button[^>]*disabled=""[^>]*>Replay<\/button>/);
    expect(markupText(element)).toContain(reason);
  });

  it('is enabled with the reason when it can be, and says it is under way while it runs', () => {
    const element = withServices(<ReplayButton callId="c1" replay={{ possible: true, reason: 'echo 1.0.0 is pure: it can be re-run' }} />);
    expect(renderToStaticMarkup(element)).toMatch(/<button(?![^>]*disabled)[^>]*>Replay<\/button>/);
    expect(markupText(element)).toContain('echo 1.0.0 is pure: it can be re-run');
    expect(renderToStaticMarkup(panel({ running: true }))).toMatch(/<button[^>]*disabled=""[^>]*>Replaying…<\/button>/);
  });

  it('shows a same verdict with both hashes and the version', () => {
    const report: ReplayReport = {
      callId: 'c1',
      verdict: 'same',
      reason: 'echo 1.0.0 gave the same response',
      recordedHash: RECORDED,
      replayedHash: RECORDED,
      recordedVersion: '1.0.0',
      currentVersion: '1.0.0',
      replayCallId: 'c2',
    };
    const text = markupText(panel({ report }));
    expect(text).toContain('Same response');
    expect(text).toContain('echo 1.0.0 gave the same response');
    expect(text).toContain(`Recorded${RECORDED}`);
    expect(text).toContain(`Replayed${RECORDED}`);
    expect(text).toContain('Same tool version: 1.0.0.');
    expect(text).toContain('Replay callc2');
  });

  it('shows a different verdict with both hashes', () => {
    const report: ReplayReport = { callId: 'c1', verdict: 'different', reason: 'read_file 1.0.0 gave a different response', recordedHash: RECORDED, replayedHash: REPLAYED };
    const html = renderToStaticMarkup(panel({ report }));
    expect(html).toContain('replay-different');
    expect(markupText(panel({ report }))).toMatch(new RegExp(`Different response.*Recorded${RECORDED}Replayed${REPLAYED}`));
  });

  it('says plainly when the version changed or the tool is gone', () => {
    expect(versionNote({ recordedVersion: '1.0.0', currentVersion: '1.1.0' })).toBe("The tool's version changed: 1.0.0 when recorded, 1.1.0 now.");
    expect(versionNote({ recordedVersion: '1.0.0' })).toBe('Recorded with version 1.0.0; the tool is no longer registered.');
    const report: ReplayReport = { callId: 'c1', verdict: 'not-replayable', reason: 'echo was 1.0.0 when recorded and is 1.1.0 now', recordedVersion: '1.0.0', currentVersion: '1.1.0' };
    const text = markupText(panel({ report }));
    expect(text).toContain('Not re-run');
    expect(text).toContain("The tool's version changed: 1.0.0 when recorded, 1.1.0 now.");
    expect(renderToStaticMarkup(panel({ report }))).not.toContain('replay-hashes');
  });

  it('shows why the gate refused the request', () => {
    const text = markupText(panel({ problem: 'ENOTFOUND: no call "x" in the audit log' }));
    expect(text).toContain('ENOTFOUND: no call "x" in the audit log');
  });
});
