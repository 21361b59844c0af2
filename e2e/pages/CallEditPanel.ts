import { expect, type Locator, type Page } from '@playwright/test';

/** The "Edit before approving" part of one prompt's card, and its editable diff. */
export class CallEditPanel {
  constructor(
    private readonly page: Page,
    private readonly card: Locator,
  ) {}

  /** The panel itself. */
  panel(): Locator {
    return this.card.getByTestId('call-edit');
  }

  /** Replaces the whole new content in the diff's right pane by typing, as a person would. */
  async typeNewContent(text: string): Promise<void> {
    const editor = this.card.getByTestId('diff-editor');
    await expect(editor).toHaveAttribute('data-editable', 'true');
    const newSide = editor.locator('.editor.modified .view-lines, .diff-created-content .view-lines').first();
    await newSide.click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.type(text);
  }

  /** The switch that writes or leaves out hunk `number`. */
  hunkSwitch(number: number): Locator {
    return this.card.getByRole('checkbox', { name: new RegExp(`^Write hunk ${number} `) });
  }

  /** Opens the arguments editor and returns its text box. */
  async openArguments(): Promise<Locator> {
    await this.card.getByRole('button', { name: 'Edit arguments', exact: true }).click();
    return this.argumentsBox();
  }

  /** The arguments editor's text box. */
  argumentsBox(): Locator {
    return this.card.getByLabel('Edited arguments (JSON)', { exact: true });
  }

  /** The problems the gate found with the edit, by field. */
  problems(): Locator {
    return this.card.getByTestId('edit-problems');
  }

  /** What the edit changes, once the gate has checked it. */
  summary(): Locator {
    return this.card.getByTestId('edit-summary');
  }

  /** The card's Approve button. */
  approveButton(): Locator {
    return this.card.getByRole('button', { name: 'Approve', exact: true });
  }

  /** Undoes every edit. */
  async undo(): Promise<void> {
    await this.card.getByRole('button', { name: 'Undo edits', exact: true }).click();
  }
}
