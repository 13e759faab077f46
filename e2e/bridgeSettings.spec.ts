// The admin's bridge settings on /settings, with the keyboard alone: how many local desktops a
// member may run at once is shown as the bridge has it, a number out of range is refused at the
// field (focus moves there, the bridge keeps its value), and a good one is saved and read back
// from the bridge. The setting is put back afterwards (the stack is shared).
import {
  API,
  BridgeSettings,
  DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS,
  MAX_DESKTOPS_PER_MEMBER,
  PAGES,
} from '@overlay-companion/protocol';
import { expect, test } from './fixtures.js';
import { ConsolePage } from './pages/ConsolePage.js';
import { adminSession, signInContext, type SignInTarget } from './support/signIn.js';

async function settingsOf(stack: SignInTarget): Promise<BridgeSettings> {
  const answer = await (await adminSession(stack)).request(API.settings);
  return BridgeSettings.parse(await answer.json());
}

test.afterEach(async ({ stack }) => {
  await (
    await adminSession(stack)
  ).request(API.settings, {
    method: 'PUT',
    body: { member_running_local_desktops: DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS },
  });
});

test('an admin sets how many local desktops a member may run at once, with the keyboard alone', async ({
  page,
  stack,
}, info) => {
  await signInContext(page.context(), stack);
  await new ConsolePage(page, stack.url).open(PAGES.settings);
  const field = page.getByLabel('Local desktops a member may run at once');
  await expect(field).toHaveValue(String(DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS));

  // Out of range: refused at the field, focus there, nothing sent.
  await field.focus();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(String(MAX_DESKTOPS_PER_MEMBER + 1));
  await page.keyboard.press('Enter');
  await expect(field).toHaveAccessibleDescription(
    new RegExp(`whole number of local desktops from 1 to ${String(MAX_DESKTOPS_PER_MEMBER)}`),
  );
  await expect(field).toBeFocused();
  expect((await settingsOf(stack)).member_running_local_desktops).toBe(
    DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS,
  );

  // In range: saved, said, and what the bridge answers afterwards.
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('2');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toContainText(
    'a member may run 2 local desktops at once',
  );
  expect((await settingsOf(stack)).member_running_local_desktops).toBe(2);
  await page.reload();
  await expect(page.getByLabel('Local desktops a member may run at once')).toHaveValue('2');
  // For a person to look at: the section at a phone's, a laptop's and a 4K width.
  for (const [width, height] of [
    [390, 844],
    [1280, 800],
    [3840, 2160],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({
      path: info.outputPath(`settings-${String(width)}.png`),
      fullPage: true,
    });
  }
});
