// Accessibility checks for the e2e specs: axe-core (through @axe-core/playwright) on the page as
// it is right now, failing on serious and critical violations and listing the rest as test
// annotations; and moving through a page with the Tab key alone, as a keyboard user does.
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';

const FAILING = new Set(['serious', 'critical']);

/** Runs axe on `page`; fails listing every serious or critical violation, with where it is. */
export async function expectNoSeriousViolations(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  // axe ran its rules on this page (a page it could not read would pass with nothing checked).
  expect(results.passes.length, `axe checked nothing on ${what}`).toBeGreaterThan(10);
  const lines = (impact: (i: string | null | undefined) => boolean) =>
    results.violations
      .filter((violation) => impact(violation.impact))
      .map(
        (violation) =>
          `${violation.impact ?? '?'} ${violation.id}: ${violation.help} — ${violation.nodes
            .map((node) => node.target.join(' '))
            .join(', ')}`,
      );
  const minor = lines((impact) => !FAILING.has(impact ?? ''));
  if (minor.length > 0) {
    test
      .info()
      .annotations.push({ type: `axe (not failing) on ${what}`, description: minor.join('\n') });
  }
  expect(
    lines((impact) => FAILING.has(impact ?? '')),
    `axe on ${what}`,
  ).toEqual([]);
}

/**
 * Presses Tab (or Shift+Tab) until `target` has the keyboard focus; fails after `max` presses.
 * Returns how many presses it took.
 */
export async function tabTo(
  page: Page,
  target: Locator,
  { max = 60, backwards = false }: { max?: number; backwards?: boolean } = {},
): Promise<number> {
  for (let presses = 0; presses <= max; presses++) {
    if (await target.evaluate((el) => el === document.activeElement)) return presses;
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  const focused = await page.evaluate(
    () => document.activeElement?.outerHTML.slice(0, 200) ?? 'nothing',
  );
  throw new Error(`${max} presses of Tab never reached ${String(target)}; focus is on ${focused}`);
}
