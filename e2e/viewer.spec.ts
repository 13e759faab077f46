// First end-to-end test: the real viewer in Debian's Chromium, the real bridge and embedded
// gateway, and a real Xvnc desktop with an xterm. Checks what the person would see (pixels of
// the page) and what really happened on the desktop (X side: window geometry, screen size, and
// a file written by the shell in the xterm).
/// <reference lib="dom" />
import { desktopFile } from './support/desktopFiles.js';
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { expect, test } from './fixtures.js';
import { regionStats } from './support/pixels.js';
import { screenSize, windowRect } from './support/xdesktop.js';

async function fileText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

test('shows the desktop and types into its xterm only while the display has focus', async ({
  page,
  stack,
  viewer,
  pixelPage,
}, testInfo) => {
  const name = `oc-e2e-${randomUUID()}`;
  const { inDesktop: marker, onHost: markerOnHost } = desktopFile(stack.xEnv, name);
  const { inDesktop: leaked, onHost: leakedOnHost } = desktopFile(stack.xEnv, `${name}-leaked`);
  try {
    await viewer.open();
    await viewer.waitConnected();
    // "Connected" comes with the handshake; the picture with the desktop's first frame (an RDP
    // session shows its size only once logged in).
    await expect(page.getByTestId('desktop-size')).toBeVisible({ timeout: 15_000 });
    const desktop = await screenSize(stack.xEnv);
    const xterm = await windowRect(stack.xEnv, 'xterm');
    const box = await viewer.displayBox();
    const scale = box.width / desktop.width;
    // Fitted with the aspect ratio kept.
    expect(box.height / box.width).toBeCloseTo(desktop.height / desktop.width, 2);

    // In screenshot pixels (the display element's own screenshot, device scale 1).
    const inset = 6;
    const xtermRegion = {
      x: (xterm.x + inset) * scale,
      y: (xterm.y + inset) * scale,
      width: (xterm.width - 2 * inset) * scale,
      height: (xterm.height - 2 * inset) * scale,
    };
    const belowXterm = {
      x: 0,
      y: (xterm.y + xterm.height + 20) * scale,
      width: box.width,
      height: box.height - (xterm.y + xterm.height + 20) * scale,
    };
    expect(belowXterm.height, 'the test needs desktop below the xterm').toBeGreaterThan(20);

    /**
     * Polls screenshots of the display until the xterm shows (white, with text) on a darker
     * desktop, then saves the screenshot (and the whole page) as artifacts named `name`.
     */
    const expectXtermDrawn = async (name: string) => {
      let shot: Buffer = Buffer.alloc(0);
      await expect
        .poll(
          async () => {
            shot = await viewer.display.screenshot();
            const [all, term, below] = await regionStats(pixelPage, shot, [
              { x: 0, y: 0, width: box.width, height: box.height },
              xtermRegion,
              belowXterm,
            ]);
            return {
              varied: (all?.lumaStdDev ?? 0) > 20 && (all?.colours ?? 0) > 4,
              xtermIsWhite: (term?.white ?? 0) > 0.6,
              xtermHasText: (term?.dark ?? 0) > 0.0005,
              restIsNotWhite: (below?.white ?? 1) < 0.2,
            };
          },
          {
            timeout: 20_000,
            message: `${name}: the screenshot should show the xterm (white, with text) on a darker desktop`,
          },
        )
        .toEqual({ varied: true, xtermIsWhite: true, xtermHasText: true, restIsNotWhite: true });
      const desktopPath = testInfo.outputPath(`${name}-desktop.png`);
      const pagePath = testInfo.outputPath(`${name}-page.png`);
      await writeFile(desktopPath, shot);
      await page.screenshot({ path: pagePath });
      await testInfo.attach(`${name}-desktop.png`, { path: desktopPath, contentType: 'image/png' });
      await testInfo.attach(`${name}-page.png`, { path: pagePath, contentType: 'image/png' });
    };

    // Frames keep arriving after "Connected": the first check polls until the xterm is drawn.
    await expectXtermDrawn('connected');

    // Keys typed while the page (not the desktop) has focus stay with the page.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await expect(viewer.keyboardTarget).toHaveText('Click the desktop to type');
    await page.keyboard.type(`echo leaked > ${leaked}\n`);

    // Click into the xterm: the display takes the keyboard, and the xterm gets X focus.
    const target = await viewer.pagePoint(
      desktop.width,
      xterm.x + xterm.width / 2,
      xterm.y + xterm.height / 2,
    );
    await page.mouse.click(target.x, target.y);
    await expect(viewer.keyboardTarget).toHaveText('Keyboard → desktop');
    await page.keyboard.type(`echo hello-e2e > ${marker}\n`);

    await expect
      .poll(() => fileText(markerOnHost), {
        timeout: 15_000,
        message: `the xterm's shell should write ${marker}`,
      })
      .toBe('hello-e2e\n');
    // Anything typed before the click would have run first in the same shell.
    expect(await fileText(leakedOnHost)).toBeNull();

    // Typing redrew parts of the xterm (and its cursor blinks): partial updates must add to
    // the picture, not replace it.
    await expectXtermDrawn('after-typing');
  } finally {
    await rm(markerOnHost, { force: true });
    await rm(leakedOnHost, { force: true });
  }
});

test('never resizes the remote desktop: resizing the window rescales the picture, not the desktop', async ({
  page,
  stack,
  viewer,
}) => {
  const before = await screenSize(stack.xEnv);
  await page.setViewportSize({ width: 1100, height: 700 });
  await viewer.open();
  await viewer.waitConnected();
  expect(await screenSize(stack.xEnv)).toEqual(before);

  // Scaled to fit the display area, aspect kept, centred. (The status bar settles once the
  // link to the bridge is up — which AI clients, whether the AI may act unasked — and the
  // picture follows the area it leaves: compare the two once both have settled.)
  await expect(viewer.page.getByTestId('ai-link')).toHaveAttribute('data-link', 'open');
  const fitted = async () => {
    const area = await viewer.areaSize();
    const box = await viewer.displayBox();
    const fit = Math.min(area.width / before.width, area.height / before.height);
    return Math.abs(box.width - before.width * fit) < 0.5 &&
      Math.abs(box.height - before.height * fit) < 0.5
      ? 'fitted'
      : `area ${area.width}×${area.height}, picture ${box.width}×${box.height}`;
  };
  await expect.poll(fitted).toBe('fitted');
  const box = await viewer.displayBox();
  const areaBox = await viewer.area.boundingBox();
  if (!areaBox) throw new Error('the display area is not visible');
  expect(box.x - areaBox.x).toBeCloseTo((areaBox.width - box.width) / 2, 0);
  expect(box.y - areaBox.y).toBeCloseTo((areaBox.height - box.height) / 2, 0);

  // Resizing the window rescales the picture, not the desktop.
  await page.setViewportSize({ width: 800, height: 640 });
  const smaller = await viewer.areaSize();
  const smallerFit = Math.min(smaller.width / before.width, smaller.height / before.height);
  await expect
    .poll(async () => (await viewer.displayBox()).width)
    .toBeCloseTo(before.width * smallerFit, 0);
  expect(await screenSize(stack.xEnv)).toEqual(before);

  // No window can resize the shared desktop: the menu offers no such choice.
  await page.getByRole('button', { name: 'Menu' }).click();
  await expect(page.getByRole('radio', { name: 'Fit to window' })).toBeVisible();
  await expect(page.getByRole('radio', { name: /resize/i })).toHaveCount(0);
  await page.getByRole('button', { name: 'Close' }).click();
  expect(await screenSize(stack.xEnv)).toEqual(before);
});
