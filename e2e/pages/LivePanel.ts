import { expect, type Locator } from '@playwright/test';
import type { CallStatus } from '../../shared/call';
import type { ConsolePage } from './ConsolePage';
import { attributeSelector } from './cssAttribute';

/** The Live tab: one row per call, newest first. */
export class LivePanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Live tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Live');
  }

  /** Every call row, newest first. */
  rows(): Locator {
    return this.console.page.getByTestId('call-row');
  }

  /** The row of a call, by its id or (the newest call of) a tool name. */
  rowFor(callIdOrTool: string): Locator {
    const byId = `[data-testid="call-row"]${attributeSelector('data-call-id', callIdOrTool)}`;
    const byTool = `[data-testid="call-row"]${attributeSelector('data-tool', callIdOrTool)}`;
    return this.console.page.locator(`${byId}, ${byTool}`).first();
  }

  /** The status a call is at now (checking, awaiting-approval, running, completed, rejected, failed). */
  async statusOf(callIdOrTool: string): Promise<string | null> {
    await this.show();
    return this.rowFor(callIdOrTool).getAttribute('data-status');
  }

  /** Waits until a call reaches a status. */
  async waitForStatus(callIdOrTool: string, status: CallStatus, timeout?: number): Promise<void> {
    await this.show();
    await expect(this.rowFor(callIdOrTool)).toHaveAttribute('data-status', status, { timeout });
  }

  /** The terminal under a call's row (its streamed output), by call id or (the newest call of) a tool name. */
  async terminalFor(callIdOrTool: string): Promise<Locator> {
    const callId = (await this.rowFor(callIdOrTool).getAttribute('data-call-id')) ?? callIdOrTool;
    return this.console.page.locator(`[data-testid="call-output-row"]${attributeSelector('data-call-id', callId)}`).getByTestId('call-terminal');
  }

  /** The text of each row a call's terminal draws, top to bottom (no-break spaces read as spaces, line ends trimmed). */
  async terminalRows(terminal: Locator): Promise<string[]> {
    const rows = await terminal.locator('.xterm-rows > div').allTextContents();
    return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd());
  }

  /** The Undo panel under a call's row, once its "Undo…" link opened it. */
  undoRowFor(callId: string): Locator {
    return this.console.page.locator(`[data-testid="call-undo-row"]${attributeSelector('data-call-id', callId)}`);
  }

  /** A call's "Waited" cell (time it waited for a person: "—" when nobody was asked). */
  waitedCell(callIdOrTool: string): Locator {
    return this.rowFor(callIdOrTool).getByTestId('call-waited');
  }

  /** A call's "Ran" cell (time its tool ran, apart from any wait). */
  ranCell(callIdOrTool: string): Locator {
    return this.rowFor(callIdOrTool).getByTestId('call-ran');
  }

  /** The agent a call's row names (client and version). */
  agentCell(callIdOrTool: string): Locator {
    return this.rowFor(callIdOrTool).getByTestId('call-agent');
  }

  /** The "Open prompt" link of a call waiting for approval. */
  promptLink(callIdOrTool: string): Locator {
    return this.rowFor(callIdOrTool).getByTestId('open-prompt');
  }

  /** The "Audit trail" link of a call. */
  auditTrailLink(callIdOrTool: string): Locator {
    return this.rowFor(callIdOrTool).getByTestId('open-audit-trail');
  }

  /** Presses Stop under a running call. */
  async stop(callIdOrTool: string): Promise<void> {
    const callId = (await this.rowFor(callIdOrTool).getAttribute('data-call-id')) ?? callIdOrTool;
    await this.console.page.locator(`[data-testid="call-output-row"]${attributeSelector('data-call-id', callId)}`).getByTestId('stop-call').click();
  }

  /** The result or error text of a call (an error reads "CODE message"). */
  async outcomeOf(callIdOrTool: string): Promise<string> {
    await this.show();
    return (await this.rowFor(callIdOrTool).locator('td.call-outcome').textContent()) ?? '';
  }
}
