// Where the viewer's toasts are drawn beside its panels, for the specs that check that a toast
// never covers what a person must press (toastPlacement, toastPanels): the boxes of what is drawn
// for some test ids, the pairs in which a toast covers something, and a denial that makes a
// "Denied: …" toast.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, type Page } from '@playwright/test';
import { callTool } from './controlPlane.js';
import { intersecting, type Box } from './uiShots.js';

/** The boxes of everything drawn for each test id (and the bar's Stop), named for the report. */
export async function boxesOf(page: Page, testIds: readonly string[]): Promise<Box[]> {
  const boxes: Box[] = [];
  for (const id of testIds) {
    const all = page.getByTestId(id);
    for (let i = 0; i < (await all.count()); i++) {
      const box = await all.nth(i).boundingBox();
      if (box !== null) boxes.push({ name: `${id}[${i}]`, ...box });
    }
  }
  const stop = await page.getByRole('button', { name: 'Stop', exact: true }).boundingBox();
  if (stop !== null) boxes.push({ name: 'Stop', ...stop });
  return boxes;
}

/** Overlaps of a toast with anything else (the panels and Stop may touch one another). */
export function toastOverlaps(boxes: readonly Box[]): string[] {
  return intersecting(boxes).filter((pair) => pair.includes('toast['));
}

/** The AI asks to click; the person denies it: the panel closes and "Denied: …" shows. */
export async function denyOneClick(page: Page, client: Client): Promise<void> {
  const asked = callTool(client, 'click_at', { x: 20, y: 20 });
  await expect(page.getByTestId('confirm-panel')).toBeVisible();
  await page.getByRole('button', { name: 'Deny', exact: true }).click();
  expect((await asked).isError).toBe(true);
  await expect(page.getByTestId('toast').last()).toContainText('Denied:');
}
