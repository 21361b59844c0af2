import { expect, type Locator } from '@playwright/test';
import type { SecurityTier } from '../../shared/manifest';
import type { UpstreamStatus } from '../../shared/upstream';
import type { ConsolePage } from './ConsolePage';
import { attributeSelector } from './cssAttribute';

/** The health a Tools row shows: healthy, unhealthy (shown as "unavailable") or not checked yet. */
export type ToolHealthState = 'healthy' | 'unhealthy' | 'unknown';

/** The Tools tab: one row per registered tool, with its tiers, limits and health. */
export class ToolsPanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Tools tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Tools');
  }

  /** Every tool row, sorted by name. */
  rows(): Locator {
    return this.console.page.getByTestId('tool-row');
  }

  /** The row of one tool. */
  rowFor(tool: string): Locator {
    return this.console.page.locator(`[data-testid="tool-row"]${attributeSelector('data-tool', tool)}`);
  }

  /**
   * Waits until a tool's latest health check says `state`. The gate checks every tool as it starts,
   * in tool processes that may still be starting, so the default wait is longer than expect's 5 s.
   */
  async waitForHealth(tool: string, state: ToolHealthState, timeout?: number): Promise<Locator> {
    await this.show();
    const row = this.rowFor(tool);
    await expect(row).toHaveAttribute('data-health', state, { timeout });
    return row;
  }

  /** The health verdict a row shows: "healthy" or "unavailable". */
  healthState(tool: string): Locator {
    return this.rowFor(tool).getByTestId('health-state');
  }

  /** The health message a row shows (the tool's own words, or why its check failed). */
  healthMessage(tool: string): Locator {
    return this.rowFor(tool).getByTestId('health-message');
  }

  /** Whether calls can reach the tool, as the row says. */
  async isAvailable(tool: string): Promise<boolean> {
    await this.show();
    return (await this.rowFor(tool).getAttribute('data-available')) === 'true';
  }

  /** The line under the effective tier saying why it is above the declared one. */
  tierRaised(tool: string): Locator {
    return this.rowFor(tool).getByTestId('tier-raised');
  }

  /** The card of one of the person's MCP servers in the "MCP servers" section. */
  upstreamServer(server: string): Locator {
    return this.console.page.locator(`[data-testid="upstream-server"]${attributeSelector('data-server', server)}`);
  }

  /** Waits until a server's card says `status`; a launch in bubblewrap takes seconds, so the default wait is long. */
  async waitForServerStatus(server: string, status: UpstreamStatus, timeout?: number): Promise<Locator> {
    await this.show();
    const card = this.upstreamServer(server);
    await expect(card).toHaveAttribute('data-status', status, { timeout });
    return card;
  }

  /** The status words a server's card shows ("awaiting launch approval", "ready", …). */
  serverStatus(server: string): Locator {
    return this.upstreamServer(server).getByTestId('upstream-status');
  }

  /** The exact command the "Start this server?" box says Toolgate will run. */
  launchCommand(server: string): Locator {
    return this.upstreamServer(server).getByTestId('launch-command');
  }

  /** Clicks "Approve launch" on a server waiting for it; the box goes once the gate accepts. */
  async approveLaunch(server: string): Promise<void> {
    await this.show();
    const card = this.upstreamServer(server);
    await card.getByRole('button', { name: 'Approve launch', exact: true }).click();
    await expect(card.getByTestId('launch-approval')).toHaveCount(0);
  }

  /** The sandbox facts a stdio server's card shows (network, writable, readable, variables), as servers.json sets it. */
  sandboxFacts(server: string): Locator {
    return this.upstreamServer(server).getByTestId('sandbox');
  }

  /** Opens a stdio server's "Change the sandbox" editor (it stays open while a change is unsaved). */
  async openSandboxEditor(server: string): Promise<Locator> {
    await this.show();
    const editor = this.upstreamServer(server).getByTestId('sandbox-editor');
    if ((await editor.getAttribute('open')) === null) await editor.locator('summary').click();
    return editor;
  }

  /** Types a folder (writable, readable) or a variable name (env) into a server's sandbox editor and adds it. */
  async addSandboxEntry(server: string, list: 'writable' | 'readable' | 'env', entry: string): Promise<void> {
    const fieldset = (await this.openSandboxEditor(server)).getByTestId(`sandbox-${list}`);
    await fieldset.getByTestId('sandbox-input').fill(entry);
    await fieldset.getByTestId('sandbox-add').click();
    await expect(fieldset.locator('code', { hasText: entry })).toHaveCount(1);
  }

  /** Removes a folder or a variable from a server's sandbox editor. */
  async removeSandboxEntry(server: string, entry: string): Promise<void> {
    const editor = await this.openSandboxEditor(server);
    await editor.getByRole('button', { name: `Remove ${entry}`, exact: true }).click();
  }

  /** Clicks "Save sandbox" on a server's card; waits until the gate has answered (the button is enabled or gone with the change). */
  async saveSandbox(server: string): Promise<void> {
    const save = (await this.openSandboxEditor(server)).getByTestId('sandbox-save');
    await save.click();
    await expect(save).not.toHaveText('Saving…');
  }

  /** Why the gate refused a server's sandbox, beside its "Save sandbox" button. */
  sandboxProblem(server: string): Locator {
    return this.upstreamServer(server).getByTestId('sandbox-problem');
  }

  /** The card of one upstream tool, by the name agents call it (`server__tool`). */
  upstreamTool(registeredAs: string): Locator {
    return this.console.page.locator(`[data-testid="upstream-tool"]${attributeSelector('data-tool', registeredAs)}`);
  }

  /** The badge saying how an upstream tool stands: trusted, unreviewed or changed. */
  pinBadge(registeredAs: string): Locator {
    return this.upstreamTool(registeredAs).getByTestId('pin-badge');
  }

  /** The findings listed on an upstream tool's card (each with its kind in data-kind). */
  findings(registeredAs: string): Locator {
    return this.upstreamTool(registeredAs).getByTestId('finding');
  }

  /** The description an upstream tool's card shows (the server's text, drawn as text). */
  toolDescription(registeredAs: string): Locator {
    return this.upstreamTool(registeredAs).getByTestId('upstream-tool-description');
  }

  /** The "Trusted before" side of a changed tool's definition. */
  previousDefinition(registeredAs: string): Locator {
    return this.upstreamTool(registeredAs).getByTestId('definition-previous');
  }

  /** The "Sent now" side of a changed tool's definition. */
  currentDefinition(registeredAs: string): Locator {
    return this.upstreamTool(registeredAs).getByTestId('definition-current');
  }

  /** Trusts an upstream tool as shown, at `tier` when given (else the tier its form shows); waits for the trusted badge. */
  async trustTool(registeredAs: string, tier?: SecurityTier): Promise<void> {
    await this.show();
    const card = this.upstreamTool(registeredAs);
    if (tier) await card.getByTestId('review-tier').selectOption(tier);
    await card.getByTestId('trust-tool').click();
    await expect(card).toHaveAttribute('data-pin', 'trusted');
  }
}
