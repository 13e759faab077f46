// The layout editor's words on its picture never cover each other (labelSpots.ts): a layout with
// a large monitor, small monitors side by side and stacked, one barely bigger than a dot, and
// masks over a monitor's corner, saved over the API and opened at a phone's 390×844, a laptop's
// 1280×800 and 4K (3840×2160 at scale 1). At each size every label's box is measured as drawn:
// no two intersect (the extents' labels included), none is cut, each monitor has its name on the
// picture in full or short, and each rectangle keeps its full name as its accessible name and
// tooltip. axe on the page; screenshots attached (and written to OC_UI_SHOTS). The layout is
// wider than the desktop, which it resizes; cleared, the desktop is back at its own size (X side).
/// <reference lib="dom" />
import { PAGES } from '@overlay-companion/protocol';
import { expect, test } from './fixtures.js';
import { expectNoSeriousViolations } from './support/a11y.js';
import { clearLayout, saveLayout } from './support/layouts.js';
import { signInContext } from './support/signIn.js';
import { UI_SIZES, intersecting, shot, sizeTag, type Box } from './support/uiShots.js';
import { screenSize } from './support/xdesktop.js';

test.afterEach(async ({ stack }) => {
  await clearLayout(stack);
});

test('labels on the layout picture: none covers another, none cut, every name reachable, at each size', async ({
  page,
  stack,
}) => {
  test.setTimeout(90_000);
  const own = await screenSize(stack.xEnv);
  await saveLayout(stack, {
    // Wider than the stack's desktop: saving it resizes the desktop, and clearing it (below)
    // gives the desktop back its size for the later specs.
    monitors: [
      { x: 0, y: 0, width: 1000, height: 800, label: 'the big one on the left' },
      { x: 1000, y: 0, width: 400, height: 200, label: 'small top' },
      { x: 1000, y: 200, width: 400, height: 200, label: 'small bottom' },
      { x: 1360, y: 400, width: 40, height: 40, label: 'tiny' },
    ],
    masks: [
      { x: 0, y: 0, width: 300, height: 90, label: 'mail' },
      { x: 1010, y: 10, width: 60, height: 30, label: 'chat' },
    ],
  });
  await expect
    .poll(() => screenSize(stack.xEnv), { message: 'the desktop sized to the layout' })
    .toEqual({ width: 1400, height: 800 });
  await signInContext(page.context(), stack);
  for (const size of UI_SIZES) {
    const tag = sizeTag(size);
    await page.setViewportSize(size);
    await page.goto(new URL(PAGES.layout, stack.url).toString());
    const picture = page.getByRole('group', { name: /^Desktop, / });
    await expect(picture).toBeVisible();
    await expect(page.getByRole('button', { name: /^Monitor 4 “tiny”/ })).toBeVisible();
    await picture.scrollIntoViewIfNeeded();
    await shot(page, `layout-labels-${tag}`);
    const labels = await page.evaluate(() =>
      Array.from(
        document.querySelectorAll<HTMLElement>(
          '[data-testid="layout-label"], [data-testid="layout-extent-label"]',
        ),
      ).map((el) => {
        const r = el.getBoundingClientRect();
        return {
          name: (el.textContent ?? '').slice(0, 40),
          x: r.x,
          y: r.y,
          width: r.width,
          height: r.height,
          cut: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
        };
      }),
    );
    const boxes: Box[] = labels;
    expect(intersecting(boxes), `labels over each other at ${tag}`).toEqual([]);
    expect(
      labels.filter((l) => l.cut).map((l) => l.name),
      `cut labels at ${tag}`,
    ).toEqual([]);
    // Each monitor's name (or its number) is on the picture.
    for (const [n, full] of [
      [1, 'Monitor 1 “the big one on the left”'],
      [2, 'Monitor 2 “small top”'],
      [3, 'Monitor 3 “small bottom”'],
      [4, 'Monitor 4 “tiny”'],
    ] as const) {
      const texts = labels.map((l) => l.name);
      expect(
        texts.some((t) => t.startsWith(full) || t === String(n)),
        `monitor ${n} named on the picture at ${tag}: ${texts.join(' | ')}`,
      ).toBe(true);
      const rect = page.getByRole('button', { name: new RegExp(`^${full}`) });
      await expect(rect).toHaveAttribute('title', full);
    }
    await expectNoSeriousViolations(page, `the layout editor with cramped monitors (${tag})`);
  }
  // Cleared, the layout gives the desktop back the size it had.
  await clearLayout(stack);
  await expect
    .poll(() => screenSize(stack.xEnv), { message: 'the desktop back at its own size' })
    .toEqual(own);
});
