// Page object for the console (/config, /settings, /audit, /people) and the sign-in page, driven
// the way a person does: fields found by their labels, buttons by their names. Holds no state of
// its own; every method waits for what the person would wait for (the page's own answer).
import { expect, type Locator, type Page } from '@playwright/test';
import { PAGES, TOKEN_PATTERN } from '@overlay-companion/protocol';

export interface NewPerson {
  username: string;
  displayName?: string;
  password?: string;
  role?: 'member' | 'admin';
}

export class ConsolePage {
  /** The page's h1 (the console's title, e.g. "Config & tokens"). */
  readonly heading: Locator;

  constructor(
    readonly page: Page,
    /** The bridge's base URL. */
    readonly url: string,
  ) {
    this.heading = page.getByRole('heading', { level: 1 });
  }

  async open(path: (typeof PAGES)[keyof typeof PAGES]): Promise<void> {
    await this.page.goto(new URL(path, this.url).toString());
  }

  /** Follows the console's own nav link (client-side navigation, no reload). */
  async navigate(label: 'Config & tokens' | 'Settings' | 'Audit' | 'People'): Promise<void> {
    await this.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: label })
      .click();
    await expect(this.heading).toHaveText(label);
  }

  /** Signs in on /signin with the form (the page then goes on to `next`, the viewer by default). */
  async signIn(username: string, password: string): Promise<void> {
    await this.open(PAGES.signIn);
    const form = this.page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Username').fill(username);
    await form.getByLabel('Password', { exact: true }).fill(password);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await expect(this.page).not.toHaveURL(/\/signin/);
  }

  async signOut(): Promise<void> {
    await this.page.getByRole('button', { name: 'Sign out' }).click();
    await expect(this.page).toHaveURL(/\/signin$/);
  }

  // --- /config -------------------------------------------------------------------------------

  /** Creates a token named `name` on /config and returns its secret, read from the page once. */
  async createToken(name: string): Promise<string> {
    const form = this.page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Name').fill(name);
    await form.getByRole('button', { name: 'Create token' }).click();
    const secretField = this.page.getByLabel('Token', { exact: true });
    await expect(secretField).toHaveValue(TOKEN_PATTERN);
    return secretField.inputValue();
  }

  /** The row of the token list whose name cell is `name`. */
  tokenRow(name: string): Locator {
    return this.page
      .getByRole('region', { name: 'Your tokens' })
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  /** Revoke → "Revoke token" (the confirmation next to it), then waits for the page's notice. */
  async revokeToken(name: string): Promise<void> {
    await this.page.getByRole('button', { name: `Revoke ${name}`, exact: true }).click();
    await this.page.getByRole('button', { name: 'Revoke token' }).click();
    await expect(this.page.getByRole('status').filter({ hasText: 'Revoked' })).toHaveText(
      `Revoked “${name}”.`,
    );
  }

  // --- /people -------------------------------------------------------------------------------

  async addPerson(person: NewPerson): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add a person' });
    await form.getByLabel('Username').fill(person.username);
    if (person.displayName !== undefined) {
      await form.getByLabel('Display name').fill(person.displayName);
    }
    if (person.password !== undefined) await form.getByLabel('Password').fill(person.password);
    await form.getByLabel('Role').selectOption(person.role ?? 'member');
    await form.getByRole('button', { name: 'Add person' }).click();
    await expect(this.page.getByRole('status').filter({ hasText: 'Added' })).toHaveText(
      `Added ${person.username}.`,
    );
  }

  // --- /audit --------------------------------------------------------------------------------

  /** The audit table's body rows (newest first). */
  auditRows(): Locator {
    return this.page.getByRole('region', { name: 'Audit entries' }).locator('tbody tr');
  }

  /** Audit rows of tool calls of `tool` (the What column names the tool in a <code>). */
  auditToolRows(tool: string): Locator {
    return this.auditRows().filter({
      has: this.page.locator('td:nth-child(2) code', { hasText: new RegExp(`^${tool}$`) }),
    });
  }
}
