// What the fleet specs share: a tile of the fleet page, the stack's desktops, and leaving the
// shared e2e stack with its one desktop afterwards.
import { API, type DesktopList, type DesktopView } from '@overlay-companion/protocol';
import type { Locator, Page } from '@playwright/test';
import { expect } from '../fixtures.js';
import type { BrowserSession } from '../../apps/bridge/src/testing/browserSession.js';

/** The fleet page's tile of desktop `id`. */
export const fleetTile = (page: Page, id: string): Locator =>
  page.locator(`[data-testid="fleet-tile"][data-desktop-id="${id}"]`);

/** Every desktop the admin sees. */
export async function listDesktops(admin: BrowserSession): Promise<DesktopView[]> {
  return ((await (await admin.request(API.desktops)).json()) as DesktopList).desktops;
}

/**
 * Removes every desktop but `keepId`: the e2e stack is shared, and the specs after a fleet spec
 * expect its one desktop (an AI with a token for every desktop would otherwise act on another).
 */
export async function removeDesktopsBut(admin: BrowserSession, keepId: string): Promise<void> {
  for (const desktop of await listDesktops(admin)) {
    if (desktop.id === keepId) continue;
    const removed = await admin.request(`${API.desktops}/${desktop.id}`, { method: 'DELETE' });
    expect(removed.ok, `DELETE ${desktop.name}: ${removed.status}`).toBe(true);
  }
}
