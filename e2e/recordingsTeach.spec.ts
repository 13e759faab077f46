// The person's teach answer in a recording, end to end on the real stack (bridge, gateway, Xvnc,
// Chromium, a real MCP client): while the desktop is recorded, the AI asks with
// request_annotation, the person draws a rectangle and clicks a point in the viewer, writes a
// note and presses Done. The answer is in the audit log (a teach_answer row, the note redacted);
// in the player the event list says who answered and what they pointed out, and the AI
// timeline's card of the request shows the question, the answer and the person's marks on its
// thumbnail — the note's words nowhere (a recording is watched by everyone who may see the
// desktop). The recording setting and the desktop's mode are left as found.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API, type AuditPage } from '@overlay-companion/protocol';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openViewerAt,
  setViewerMode,
  viewerRole,
} from './support/controlPlane.js';
import { dragBetween, displayMapping, spot } from './support/pageMapping.js';
import { recordingOn } from './support/recordingOn.js';
import { adminSession, signInContext } from './support/signIn.js';
import { screenSize } from './support/xdesktop.js';

const NOTE = 'the invoice for Mrs Okafor';

let mcp: Client | undefined;
test.afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

interface Listed {
  id: string;
  live: boolean;
}

test("the person's teach answer is in the audit, the player's event list and the request's timeline card", async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const admin = await adminSession(stack);
  const listed = async () =>
    ((await (await admin.request('/api/recordings')).json()) as { recordings: Listed[] })
      .recordings;
  const before = new Set((await listed()).filter((r) => !r.live).map((r) => r.id));
  // The control window, in the mode an earlier spec left (put back at the end).
  await signInContext(page.context(), stack);
  await openViewerAt(page, stack, '/');
  await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
  const modeFound = await page.getByTestId('mode-select').inputValue();
  let recordingBack: (() => Promise<void>) | undefined;
  try {
    recordingBack = await recordingOn(stack);
    await expect(page.getByTestId('recording-indicator')).toHaveText(/Recording/, {
      timeout: 15_000,
    });
    let recordingId = '';
    await expect
      .poll(
        async () =>
          (recordingId = (await listed()).find((r) => r.live && !before.has(r.id))?.id ?? ''),
        { timeout: 15_000 },
      )
      .not.toBe('');

    // The AI asks; the person draws a rectangle and clicks a point, notes the first, Done.
    mcp = await connectMcp(stack);
    const answer = callTool(
      mcp,
      'request_annotation',
      { prompt: 'Show me the invoice', intent: 'find the invoice to open' },
      60_000,
    );
    await expect(page.getByTestId('teach-panel')).toBeVisible({ timeout: 15_000 });
    const desktop = await screenSize(stack.xEnv);
    const m = await displayMapping(page, desktop.width);
    const from = spot(m, Math.round(desktop.width * 0.5), Math.round(desktop.height * 0.4));
    const to = spot(m, Math.round(desktop.width * 0.6), Math.round(desktop.height * 0.5));
    await dragBetween(page, from, to);
    const point = spot(m, Math.round(desktop.width * 0.7), Math.round(desktop.height * 0.6));
    await page.mouse.click(point.page.x, point.page.y);
    await expect(page.getByTestId('teach-item')).toHaveCount(2);
    await page.getByRole('textbox', { name: 'Note for item 1' }).fill(NOTE);
    await page.getByRole('button', { name: 'Done', exact: true }).click();
    const result = await answer;
    expect(result.isError, result.text).toBe(false);
    const width = Math.abs(to.pixel.x - from.pixel.x) + 1;
    const height = Math.abs(to.pixel.y - from.pixel.y) + 1;
    const sentence = `pointed out 2 items: rect ${width}×${height} at ${from.pixel.x},${from.pixel.y}; point ${point.pixel.x},${point.pixel.y}`;

    // The audit: the person's answer, the note redacted (the admin keeps no typed text here).
    const audit = (await (
      await admin.request(`${API.audit}?kind=teach_answer&limit=1`)
    ).json()) as AuditPage;
    expect(audit.entries[0]).toMatchObject({
      kind: 'teach_answer',
      actor: 'person',
      tool: 'request_annotation',
      outcome: 'answered',
    });
    expect(audit.entries[0]?.summary).toContain(`[redacted: ${NOTE.length} characters]`);
    expect(audit.entries[0]?.summary).not.toContain('Okafor');
    const by = audit.entries[0]?.person_name ?? '';
    expect(by).not.toBe('');

    // The player of the recording being made: the event list and the request's card.
    await page.goto(new URL(`/recordings/${recordingId}`, stack.url).toString());
    const listedAnswer = page
      .getByTestId('recording-event')
      .and(page.locator('[data-kind="teach.answer"]'));
    await expect(listedAnswer).toHaveCount(1, { timeout: 30_000 });
    await expect(listedAnswer).toContainText(`Teach answer: ${by} ${sentence}`);
    const card = page.getByTestId('ai-card').filter({ has: page.getByTestId('ai-card-answer') });
    await expect(card).toHaveCount(1);
    await expect(card).toContainText('request_annotation');
    await expect(card.getByTestId('ai-card-answer')).toHaveText(
      `Show me the invoice — ${by} ${sentence}`,
    );
    // The card's Show moves the player there; with the recording's picture shown the player
    // knows the desktop's size, and the person's rectangle and point are marked on the
    // thumbnail in teach mode's colour.
    await expect(page.getByTestId('player-seek')).toBeVisible({ timeout: 30_000 });
    await card.getByRole('button', { name: /^Show request_annotation/ }).click();
    await expect(card.locator('.ai-card__mark--taught')).toHaveCount(2, { timeout: 30_000 });
    // The note's words are nowhere on the page.
    await expect(page.getByText('Okafor')).toHaveCount(0);
  } finally {
    await recordingBack?.();
    await openViewerAt(page, stack, '/');
    await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
    await setViewerMode(page, modeFound);
  }
});
