// Every way of typing (issue P9 item 8): text that the browser hands over as text — insertText
// (a phone keyboard, an emoji picker) and an IME's composition — reaches the desktop while the
// desktop area has the keyboard, each piece exactly once, and never while the person may only
// watch. Checked from the X side: `cat` in the desktop's xterm writes what X delivered to a file.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CDPSession, Page } from '@playwright/test';
import type { RunningStack } from './support/bridgeProcess.js';
import { openControlViewer } from './support/controlPlane.js';
import { desktopFile } from './support/desktopFiles.js';
import { expect, test } from './fixtures.js';
import type { ViewerPage } from './pages/ViewerPage.js';
import { screenSize, windowRect } from './support/xdesktop.js';

const run = promisify(execFile);

/**
 * `cat > file` running in the desktop's xterm, started through the viewer as a person would: a
 * click into the xterm (which gives the desktop area the keyboard) and the command typed as
 * keys. Returns the file as this process reads it and a function that says what it holds.
 */
async function catInXterm(viewer: ViewerPage, stack: RunningStack, name: string) {
  const { inDesktop, onHost } = desktopFile(stack.xEnv, `oc-typing-${name}-${Date.now()}`);
  await viewer.waitConnected();
  const desktop = await screenSize(stack.xEnv);
  const xterm = await windowRect(stack.xEnv, 'xterm');
  const at = await viewer.pagePoint(
    desktop.width,
    xterm.x + xterm.width / 2,
    xterm.y + xterm.height / 2,
  );
  await viewer.page.mouse.click(at.x, at.y);
  // A space first: on a fresh session the very first key can vanish before the desktop maps it
  // (the start-of-session key loss issue 10 tracks); the shell ignores it.
  await viewer.page.keyboard.type(` cat > ${inDesktop}\n`);
  // Keys typed while the shell is still starting cat may be flushed with its line: wait for cat.
  await expect
    .poll(async () => {
      const pids = (await run('pgrep', ['-x', 'cat']).catch(() => ({ stdout: '' }))).stdout;
      for (const pid of pids.trim().split('\n').filter(Boolean)) {
        const out = await run('readlink', [`/proc/${pid}/fd/1`]).catch(() => ({ stdout: '' }));
        if (out.stdout.trim() === inDesktop) return true;
      }
      return false;
    })
    .toBe(true);
  const text = async () => (await run('cat', [onHost]).catch(() => ({ stdout: '' }))).stdout;
  return { onHost, text };
}

/** The desktop takes the keyboard as a keyboard user gives it: the area gets focus. */
async function focusDesktop(page: Page): Promise<void> {
  const area = page.locator('[data-remote-display]');
  await area.focus();
  // The page still sees the area itself as focused (hotkeys, status bar, approval panel), while
  // the field that receives text inside it holds the caret.
  await expect(area).toBeFocused();
  expect(await area.evaluate((el) => el.shadowRoot?.activeElement?.tagName)).toBe('TEXTAREA');
  await expect(page.getByTestId('keyboard-target')).toHaveText('Keyboard → desktop');
  // A space as a key: ordinary typing goes on as before, once.
  await page.keyboard.press('Space');
}

/** An IME composes `reading`, turns it into `text` and commits it, as Chromium reports it. */
async function composeWithIme(cdp: CDPSession, reading: string, text: string): Promise<void> {
  for (const step of [reading, text])
    await cdp.send('Input.imeSetComposition', {
      text: step,
      selectionStart: step.length,
      selectionEnd: step.length,
    });
  await cdp.send('Input.insertText', { text });
}

/** Ends cat's input line and the file. */
async function endCat(page: Page): Promise<void> {
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+d');
}

test('insertText (a phone keyboard, an emoji picker) reaches the desktop once', async ({
  page,
  stack,
  viewer,
}) => {
  await openControlViewer(page, stack, 'assist');
  const file = await catInXterm(viewer, stack, 'insert');
  try {
    await focusDesktop(page);
    await page.keyboard.insertText('äöü€');
    await endCat(page);
    await expect.poll(file.text).toBe(' äöü€\n');
  } finally {
    await run('rm', ['-f', file.onHost]);
  }
});

test('an IME composition reaches the desktop once, when committed', async ({
  page,
  stack,
  viewer,
}) => {
  await openControlViewer(page, stack, 'assist');
  const file = await catInXterm(viewer, stack, 'ime');
  const cdp = await page.context().newCDPSession(page);
  try {
    await focusDesktop(page);
    await composeWithIme(cdp, 'にほん', '日本');
    await endCat(page);
    // Neither the reading nor any step of the composition, and the word once.
    await expect.poll(file.text).toBe(' 日本\n');
  } finally {
    await cdp.detach();
    await run('rm', ['-f', file.onHost]);
  }
});

test('keys, insertText and compositions mixed each arrive once, in order; with View only none does', async ({
  page,
  stack,
  viewer,
}) => {
  await openControlViewer(page, stack, 'assist');
  const file = await catInXterm(viewer, stack, 'mixed');
  const cdp = await page.context().newCDPSession(page);
  const viewOnly = async (on: boolean) => {
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByTestId('menu-view-only').setChecked(on);
    await page.getByRole('button', { name: 'Close' }).click();
  };
  try {
    await viewOnly(true);
    await page.locator('[data-remote-display]').focus();
    await page.keyboard.type('no');
    await page.keyboard.insertText('ä');
    await composeWithIme(cdp, 'にほん', '日本');
    await viewOnly(false);

    await focusDesktop(page);
    await page.keyboard.type('ab');
    await page.keyboard.insertText('ö');
    await composeWithIme(cdp, 'にほん', '日本');
    await page.keyboard.insertText('€');
    await composeWithIme(cdp, 'e', 'ê');
    await page.keyboard.type('c');
    await endCat(page);
    await expect.poll(file.text).toBe(' abö日本€êc\n');
  } finally {
    await cdp.detach();
    await run('rm', ['-f', file.onHost]);
  }
});
