// A recording this bridge cannot reach, on /recordings (the web side of storage/unreachable.ts):
// what a bridge of the site configured for another bucket leaves in the shared database — a row
// kept on S3 in a bucket this bridge was not started with — is written through the bridge's own
// store into the running stack's database, as s3Reach.test.ts does. The admin's list says where
// it is and offers "Remove from list", reached by Tab, asked first (saying its files are not
// deleted) with the keyboard on Cancel, Escape taking it back; removed, the row is gone from the
// list and the database and the audit says where its objects stay. Someone else who may see the
// desktop reads only that it cannot be played here, and has nothing to remove it with; neither has
// a Play link for it. Everything is real: bridge, SQLite, Chromium.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { API, AuditPage, PAGES } from '@overlay-companion/protocol';
import type { BrowserContext } from '@playwright/test';
import { registerSecret } from '../apps/bridge/src/testing/testLogs.js';
import { openStore } from '../apps/bridge/src/store/openStore.js';
import type { Store } from '../apps/bridge/src/store/types.js';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { grantAdminDesktop } from './support/grants.js';
import { tabTo } from './support/a11y.js';
import { adminSession, signInContextAs } from './support/signIn.js';

const BUCKET = 'oc-another-bridge';
const PREFIX = 'rec/';

/** The running stack's own store (its data dir's SQLite), opened beside the bridge. */
async function stackStore(stack: RunningStack): Promise<Store> {
  const cmdline = (await readFile(`/proc/${stack.pid}/cmdline`, 'utf8')).split('\0');
  const dataDir = cmdline[cmdline.indexOf('--data-dir') + 1] ?? '';
  expect(dataDir, 'the stack is started with --data-dir').not.toBe('');
  return openStore({ dataDir });
}

test('a recording in a bucket this bridge is not configured for: an admin removes it from the list, no one else can', async ({
  browser,
  stack,
}) => {
  test.setTimeout(90_000);
  const admin = await adminSession(stack);
  const member = { username: `away-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };
  registerSecret(member.password);
  const made = await admin.request(API.people, {
    body: { ...member, role: 'member', display_name: 'Away Viewer' },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  const desktopId = await grantAdminDesktop(admin, member.username, 'view');

  // What another bridge of the site, configured for another bucket, wrote: a finished recording
  // moved to its bucket (none of whose objects this bridge can reach).
  const id = `away${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  // Started a minute ago, so that it is the newest row of the admin's list even when the whole
  // suite has recorded in this stack before it (the list is newest first, and Tab walks it).
  const startedAt = Date.now() - 60_000;
  let store = await stackStore(stack);
  try {
    const desktop = await store.desktops.byId(desktopId);
    await store.recordings.add({ id, desktopId, ownerId: desktop?.ownerId ?? null, startedAt });
    await store.recordings.update(id, {
      endedAt: startedAt + 30_000,
      bytes: 123_456,
      storedBytes: 234_567,
      location: 's3',
      s3Bucket: BUCKET,
      s3Prefix: PREFIX,
    });
  } finally {
    await store.close();
  }

  let memberContext: BrowserContext | undefined;
  const adminContext = await browser.newContext();
  try {
    // Someone else who may see the desktop: why, without where, and nothing to press.
    memberContext = await browser.newContext();
    await signInContextAs(memberContext, stack.url, member);
    const theirs = await memberContext.newPage();
    await theirs.goto(new URL(PAGES.recordings, stack.url).toString());
    const theirRow = theirs
      .getByRole('row')
      .filter({ has: theirs.getByTestId('recording-unavailable') });
    await expect(theirRow).toHaveCount(1);
    await expect(theirRow).toContainText('cannot be played here');
    await expect(theirRow).not.toContainText('s3://');
    await expect(theirRow.getByRole('button')).toHaveCount(0);
    await expect(theirRow.getByRole('link')).toHaveCount(0);
    // Its own page: the same words instead of the player, nothing to export or remove.
    await theirs.goto(new URL(`${PAGES.recordings}/${id}`, stack.url).toString());
    const theirView = theirs.getByTestId('recording-unavailable-view');
    await expect(theirView).toContainText('cannot be played here');
    await expect(theirView.getByRole('button')).toHaveCount(0);
    await expect(theirs.getByTestId('player-seek')).toHaveCount(0);

    // The admin: where it is, and "Remove from list" by the keyboard, asked first.
    await signInContextAs(adminContext, stack.url, stack.admin);
    const page = await adminContext.newPage();
    await page.goto(new URL(PAGES.recordings, stack.url).toString());
    const row = page.getByRole('row').filter({ has: page.getByTestId('recording-unavailable') });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(`s3://${BUCKET}/${PREFIX}`);
    await expect(row.getByRole('link')).toHaveCount(0);
    const remove = row.getByRole('button', { name: /^Remove the recording of .* from the list$/ });
    await page.locator('body').focus();
    await tabTo(page, remove);
    await page.keyboard.press('Enter');
    const question = row.getByRole('group', { name: /^Remove this recording from the list\?/ });
    await expect(question).toContainText('Its files are not deleted');
    await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(question).toHaveCount(0);
    await expect(remove).toBeFocused();
    // Nothing was removed by asking.
    store = await stackStore(stack);
    try {
      expect((await store.recordings.byId(id))?.s3Bucket).toBe(BUCKET);
    } finally {
      await store.close();
    }

    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    await expect(question.getByRole('button', { name: 'Remove from list' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('recording-unavailable')).toHaveCount(0);

    // Gone from the list and the database; the audit says its objects stay, and where.
    const listed = (await (await admin.request('/api/recordings')).json()) as {
      recordings: { id: string }[];
    };
    expect(listed.recordings.map((r) => r.id)).not.toContain(id);
    store = await stackStore(stack);
    try {
      expect(await store.recordings.byId(id)).toBeUndefined();
    } finally {
      await store.close();
    }
    const audit = AuditPage.parse(
      await (await admin.request(`${API.audit}?kind=recording_deleted&limit=50`)).json(),
    );
    const entry = audit.entries.find((e) => e.summary?.includes(id) === true);
    expect(entry?.detail).toContain(`its objects were not deleted (s3://${BUCKET}/${PREFIX}`);
  } finally {
    await memberContext?.close();
    await adminContext.close();
  }
});
