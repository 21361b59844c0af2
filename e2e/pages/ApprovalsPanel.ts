import { expect, type Locator } from '@playwright/test';
import type { ConsolePage } from './ConsolePage';
import { attributeSelector } from './cssAttribute';

/** Options of approve() / deny(). */
export interface DecideOptions {
  /** Wait for the card to go away (the gate accepted the decision). Default true. */
  waitForResolution?: boolean;
}

/** The lasting choices of a prompt, by what they hold for. */
export type ScopeChoice = 'session' | '15m' | '1h' | 'gate' | 'user' | 'project';
const SCOPE_BUTTONS = { '15m': 'Allow for 15 min', '1h': 'Allow for 1 hour', gate: 'Allow until the gate stops' } as const;

/** The Approvals tab: one card per prompt waiting for a person. */
export class ApprovalsPanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Approvals tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Approvals');
  }

  /** Every pending prompt's card. */
  cards(): Locator {
    return this.console.page.getByTestId('approval-card');
  }

  /** The prompts whose card failed to draw, each left with why and Deny. */
  unshownCards(): Locator {
    return this.console.page.getByTestId('approval-card-unshown');
  }

  /** The line saying how many calls are waiting ("N calls are waiting for you."). */
  waitingCount(): Locator {
    return this.console.page.getByTestId('approval-count');
  }

  /** The cards drawn now from one agent session (only the cards in view are drawn). */
  cardsFromAgent(agentSession: string): Locator {
    return this.cards().filter({ has: this.console.page.locator(`[data-testid="approval-agent"]${attributeSelector('data-agent-session', agentSession)}`) });
  }

  /** The headers of the agent groups drawn now (one per agent session asking). */
  agentGroups(): Locator {
    return this.console.page.getByTestId('agent-group');
  }

  /** The header of one agent session's prompts (drawn when the list is scrolled near it). */
  agentGroup(agentSession: string): Locator {
    return this.console.page.locator(`[data-testid="agent-group"]${attributeSelector('data-agent-session', agentSession)}`);
  }

  /** The "Approve all N" button of an agent's group. */
  approveAllButton(agentSession: string): Locator {
    return this.agentGroup(agentSession).getByRole('button', { name: /^Approve all \d+$/ });
  }

  /** Clicks "Deny all from this agent" in the header of that agent session's group. */
  async denyAllFromAgent(agentSession: string): Promise<void> {
    await this.show();
    await this.agentGroup(agentSession).getByRole('button', { name: 'Deny all from this agent', exact: true }).click();
  }

  /** The prompt the keys act on now (marked, and announced to screen readers). */
  selectedCard(): Locator {
    return this.console.page.locator('[aria-current="true"] > [data-testid="approval-card"]');
  }

  /** The "?" overlay listing the keys. */
  keyHelp(): Locator {
    return this.console.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  }

  /** Scrolls the list of prompts by `pixels` (negative: up), as a mouse wheel would. */
  async scrollListBy(pixels: number): Promise<void> {
    await this.console.page.getByTestId('approval-list').evaluate((list, by) => list.scrollBy(0, by), pixels);
  }

  /** Scrolls the list of prompts to its top. */
  async scrollListToTop(): Promise<void> {
    await this.console.page.getByTestId('approval-list').evaluate((list) => list.scrollTo(0, 0));
  }

  /** The "Notify me" checkbox (browser notifications of prompts that arrive while the tab is hidden). */
  notifyToggle(): Locator {
    return this.console.page.getByRole('checkbox', { name: /^Notify me/ });
  }

  /** The card a link or a notification opened (scrolled to and focused). */
  openedCard(): Locator {
    return this.console.page.locator('[data-opened="true"]').getByTestId('approval-card');
  }

  /** The notes of prompts withdrawn because their agent left (their cards are gone). */
  leftPrompts(): Locator {
    return this.console.page.getByTestId('left-prompt');
  }

  /** The "No calls are waiting for you." message. */
  emptyMessage(): Locator {
    return this.console.page.getByText('No calls are waiting for you.');
  }

  /** Switches to Approvals and waits for a prompt for `tool`; returns its card, pinned by approval id. */
  async waitForPrompt(tool: string, timeout?: number): Promise<Locator> {
    await this.show();
    const card = this.cards()
      .filter({ has: this.console.page.getByRole('heading', { name: tool, exact: true }) })
      .first();
    await card.waitFor({ state: 'visible', timeout });
    return this.pin(card);
  }

  /** The "This call receives secrets: …" line of a prompt (absent when the call receives none). */
  async secretsNotice(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('approval-secrets');
  }

  /** The risk badges at the top of a shell prompt. */
  async riskFlags(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('risk-flags');
  }

  /** The line of a shell prompt that counts its sub-commands and names their programs. */
  async commandSummary(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('command-summary');
  }

  /** The listing of a shell prompt's sub-commands. */
  async subCommands(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('sub-commands');
  }

  /** The unified diff text of a prompt (readable whether the disclosure is open or not). */
  async diffText(card?: Locator): Promise<string> {
    return (await (await this.cardOrOnly(card)).getByTestId('unified-diff').textContent()) ?? '';
  }

  /** The "+N −M" line counts of a prompt's diff. */
  async diffStats(card?: Locator): Promise<string> {
    return (await (await this.cardOrOnly(card)).getByTestId('diff-stats').textContent()) ?? '';
  }

  /** The summary shown instead of a diff too large to draw at once. */
  async largeDiffSummary(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('large-diff-summary');
  }

  /** Draws a large diff after all. */
  async showLargeDiff(card?: Locator): Promise<void> {
    await (await this.cardOrOnly(card)).getByTestId('show-large-diff').click();
  }

  /** The Monaco diff editor's container of a prompt. */
  async diffEditor(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('diff-editor');
  }

  /** The file path shown above a prompt's diff (hidden characters appear as ⟨U+XXXX⟩). */
  async diffPath(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('diff-path');
  }

  /**
   * The rows Monaco highlights as removed (left side) and added (right side) in a prompt's diff.
   * A new file has no left side (removed is 0). A wrapped line counts once per row it takes, so
   * compare with "+N −M" only for short lines.
   */
  async highlightedRows(card?: Locator): Promise<{ added: number; removed: number }> {
    const editor = await this.diffEditor(card);
    await expect(editor.locator('.view-lines').first()).toBeVisible();
    return { added: await editor.locator('.line-insert').count(), removed: await editor.locator('.line-delete').count() };
  }

  /** Scrolls the right (new) side of a prompt's diff to its last line and returns the rows shown. */
  async newSideTextAtEnd(card?: Locator): Promise<string> {
    const editor = await this.diffEditor(card);
    const newSide = editor.locator('.editor.modified, .diff-created-content').first();
    await newSide.locator('.view-lines').click();
    await this.console.page.keyboard.press('Control+End');
    // Monaco draws spaces as no-break spaces; the caller compares plain text.
    return (await newSide.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
  }

  /** A prompt's Reason box. */
  async reasonBox(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByLabel('Reason', { exact: true });
  }

  /** The inline hint or bridge error shown on a card. */
  async problem(card?: Locator): Promise<Locator> {
    return (await this.cardOrOnly(card)).getByTestId('decision-problem');
  }

  /**
   * Clicks Approve on a prompt (the only one, if no card is given). Waiting for it to be answered, a
   * click the console held back (the card moved just before it, as a list still laying out can make
   * it: see ApproveButton) is made again; one that was taken leaves Approve disabled until the card goes.
   */
  async approve(card?: Locator, options: DecideOptions = {}): Promise<void> {
    const target = await this.cardOrOnly(card);
    const approve = target.getByRole('button', { name: 'Approve', exact: true });
    if (!(options.waitForResolution ?? true)) {
      await approve.click();
      return;
    }
    await expect(async () => {
      if ((await target.count()) === 0) return;
      await approve.click({ timeout: 2_000 });
      await expect(target).toHaveCount(0, { timeout: 2_000 });
    }).toPass();
  }

  /** Types a reason and clicks Deny on a prompt (the only one, if no card is given). */
  async deny(reason: string, card?: Locator, options: DecideOptions = {}): Promise<void> {
    const target = await this.cardOrOnly(card);
    await target.getByLabel('Reason', { exact: true }).fill(reason);
    await target.getByRole('button', { name: 'Deny', exact: true }).click();
    if (options.waitForResolution ?? true) await expect(target).toHaveCount(0);
  }

  /**
   * Opens a lasting choice on a prompt and returns its rule editor: `session` (this agent session),
   * `15m`, `1h`, `gate` (Allow for…), or `user` / `project` (Always allow…).
   */
  async chooseScope(card: Locator, choice: ScopeChoice): Promise<Locator> {
    if (choice === 'session') {
      await card.getByRole('button', { name: 'Approve for this session', exact: true }).click();
    } else if (choice === 'user' || choice === 'project') {
      await card.getByRole('button', { name: 'Always allow…', exact: true }).click();
      await card.getByRole('button', { name: `Always allow in the ${choice} policy`, exact: true }).click();
    } else {
      await card.getByRole('button', { name: 'Allow for…', exact: true }).click();
      await card.getByRole('button', { name: SCOPE_BUTTONS[choice], exact: true }).click();
    }
    return this.ruleEditor(card);
  }

  /** The rule editor a lasting choice opened on a prompt. */
  ruleEditor(card: Locator): Locator {
    return card.getByTestId('rule-editor');
  }

  /** The editable rule text of a prompt's rule editor. */
  ruleText(card: Locator): Locator {
    return this.ruleEditor(card).getByLabel('Rule (one per line)');
  }

  /** The button of the rule editor that saves the rule and approves the call. */
  saveRuleButton(card: Locator): Locator {
    return this.ruleEditor(card).getByRole('button', { name: /^Approve and / });
  }

  /** The preset reasons under "Deny because:" on a prompt, each a denial in one click. */
  denyBecause(card: Locator): Locator {
    return card.getByRole('group', { name: 'Deny because:' }).getByRole('button');
  }

  /** Denies a prompt in one click of a preset reason. */
  async denyWithPreset(card: Locator, preset: string): Promise<void> {
    await card.getByRole('button', { name: `Deny because: ${preset}`, exact: true }).click();
    await expect(card).toHaveCount(0);
  }

  /** Denies a prompt with words for the agent, sent verbatim. */
  async denyAndTell(card: Locator, text: string): Promise<void> {
    await card.getByRole('button', { name: 'Deny and tell the agent…', exact: true }).click();
    await card.getByLabel('Tell the agent (sent exactly as written)').fill(text);
    await card.getByRole('button', { name: 'Deny and send', exact: true }).click();
    await expect(card).toHaveCount(0);
  }

  // A card located by its approval id, so it does not slide to the next prompt once answered.
  private async pin(card: Locator): Promise<Locator> {
    const approvalId = await card.getAttribute('data-approval-id');
    if (!approvalId) throw new Error('an approval card without data-approval-id');
    return this.console.page.locator(`[data-testid="approval-card"]${attributeSelector('data-approval-id', approvalId)}`);
  }

  private async cardOrOnly(card: Locator | undefined): Promise<Locator> {
    if (card) return card;
    await this.show();
    await expect(this.cards()).toHaveCount(1);
    return this.pin(this.cards().first());
  }
}
