// The person's keyboard, counting presses, for the "answered in at most N key presses" checks:
// the menu chord (Ctrl+Alt+Shift, pressed and released together) counts as one press, as a
// person makes it.
import type { Page } from '@playwright/test';

export function countedKeyboard(page: Page) {
  let presses = 0;
  return {
    presses: () => presses,
    async chord(): Promise<void> {
      presses += 1;
      await page.keyboard.down('Control');
      await page.keyboard.down('Alt');
      await page.keyboard.down('Shift');
      await page.keyboard.up('Shift');
      await page.keyboard.up('Alt');
      await page.keyboard.up('Control');
    },
    async press(key: string): Promise<void> {
      presses += 1;
      await page.keyboard.press(key);
    },
  };
}
