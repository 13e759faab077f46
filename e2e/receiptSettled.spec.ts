// Input calls settled by the bridge from the tunnel's receipt (packages/protocol's
// inputReceipt.ts): the real bridge, gateway, Xvnc desktop, Chromium viewer and MCP SDK client.
// The viewer's control socket is routed through the test (Playwright routeWebSocket), which
// drops the viewer's final tool_result: a mouse_move and a click_at still answer — the bridge
// settled them when its own tunnel saw the receipt delivered, with the answer the viewer
// announced (input_sent) — and the pointer is where the call said when the call answers
// (xdotool). Attack: another signed-in person with their own (full) tunnel to the desktop
// presents the call's token on it, while the control window's own receipt under it is held
// back: the call is not settled by that; it fails when the viewer's receipt times out.
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import type { BrowserContext, Page, WebSocketRoute } from '@playwright/test';
import { registerSecret } from '../apps/bridge/src/testing/testLogs.js';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer, openViewerAt } from './support/controlPlane.js';
import { grantAdminDesktop } from './support/grants.js';
import { adminSession, signInContextAs } from './support/signIn.js';
import { pointerLocation, screenSize } from './support/xdesktop.js';

const TOKEN = /^r[0-9a-f]{32}$/;
/** A receipt request under a call's token, as guacamole-common-js encodes it on the tunnel. */
const TOKEN_RECEIPT = /10\.oc-receipt,33\.r[0-9a-f]{32};/g;

/** What the test sees of, and does to, the control window's sockets. */
interface Routed {
  tokens: string[];
  inputSent: string[];
  /** Drop the viewer's tool_result answers (only the bridge's own settling can answer then). */
  dropResults: boolean;
  /** Hold back the page's tunnel receipt requests under call tokens. */
  dropTokenReceipts: boolean;
}

async function routeControl(page: Page): Promise<Routed> {
  const routed: Routed = {
    tokens: [],
    inputSent: [],
    dropResults: false,
    dropTokenReceipts: false,
  };
  await page.routeWebSocket(/\/ws\/viewer/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      if (typeof message === 'string') {
        const parsed = JSON.parse(message) as { type?: string; receipt?: string };
        if (parsed.type === 'tool_call' && parsed.receipt !== undefined)
          routed.tokens.push(parsed.receipt);
      }
      ws.send(message);
    });
    ws.onMessage((message) => {
      if (typeof message === 'string') {
        const parsed = JSON.parse(message) as { type?: string; id?: string };
        if (parsed.type === 'input_sent') routed.inputSent.push(parsed.id ?? '');
        if (parsed.type === 'tool_result' && routed.dropResults) return;
      }
      server.send(message);
    });
  });
  await page.routeWebSocket(/\/tunnel/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      if (typeof message === 'string' && routed.dropTokenReceipts) {
        const kept = message.replace(TOKEN_RECEIPT, '');
        if (kept !== '') server.send(kept);
        return;
      }
      server.send(message);
    });
  });
  return routed;
}

let mcp: Client;
let routed: Routed;

test.beforeEach(async ({ page, stack }) => {
  routed = await routeControl(page);
  await openControlViewer(page, stack, 'autopilot');
  mcp = await connectMcp(stack);
});

test.afterEach(async () => {
  await mcp.close();
});

test('mouse_move and click_at answer from the tunnel receipt, the pointer already there', async ({
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  routed.dropResults = true;
  for (const [i, target] of [
    { x: 101, y: 77 },
    { x: desktop.width - 20, y: desktop.height - 30 },
    { x: 333, y: 222 },
  ].entries()) {
    const moved = await callTool(mcp, 'mouse_move', target);
    expect(moved.isError, moved.text).toBe(false);
    expect(moved.structured).toEqual({ success: true });
    // The bridge answered once the desktop confirmed the input: it is there now.
    expect(await pointerLocation(stack.xEnv)).toEqual(target);
    expect(routed.tokens).toHaveLength(i + 1);
  }
  // A click on the bare desktop background (bottom left), answered the same way.
  const at = { x: 40, y: desktop.height - 40 };
  const clicked = await callTool(mcp, 'click_at', at);
  expect(clicked.isError, clicked.text).toBe(false);
  expect(clicked.structured).toEqual({ success: true, was_confirmed: false });
  expect(await pointerLocation(stack.xEnv)).toEqual(at);
  // Every call carried its own token, and the viewer announced each answer.
  expect(new Set(routed.tokens).size).toBe(4);
  for (const token of routed.tokens) expect(token).toMatch(TOKEN);
  expect(routed.inputSent).toHaveLength(4);
});

test("another person's tunnel presenting the call's token does not settle it", async ({
  browser,
  stack,
}) => {
  // Another person of the stack with a control grant on the admin's desktop: their window's
  // tunnel sends input (no view grant), but the call is not theirs.
  const admin = await adminSession(stack);
  const other = {
    username: `receipts-${randomUUID().slice(0, 8)}`,
    password: `pw-${randomUUID()}`,
  };
  const made = await admin.request(API.people, {
    body: { ...other, role: 'member', display_name: 'Receipt Attacker' },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  registerSecret(other.password);
  const desktopId = await grantAdminDesktop(admin, other.username, 'control');
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext();
    await signInContextAs(context, stack.url, other);
    const page = await context.newPage();
    let tunnel: WebSocketRoute | undefined;
    await page.routeWebSocket(/\/tunnel/, (ws) => {
      const server = ws.connectToServer();
      tunnel = server;
    });
    await openViewerAt(page, stack, `/?desktop=${desktopId}`);
    const before = await pointerLocation(stack.xEnv);
    const target = { x: before.x === 250 ? 251 : 250, y: 140 };

    routed.dropResults = true;
    routed.dropTokenReceipts = true;
    const call = callTool(mcp, 'mouse_move', target);
    await expect.poll(() => routed.inputSent.length).toBe(1);
    const token = routed.tokens[0] ?? '';
    expect(token).toMatch(TOKEN);
    // The other person's tunnel asks under the token (as the control page would have).
    tunnel?.send(`10.oc-receipt,33.${token};`);
    // Not settled by that: the control window's own receipt never came, so the call fails when
    // the viewer's wait for it ends (its tool_error is not dropped).
    const outcome = await call;
    expect(outcome.isError).toBe(true);
    expect(outcome.text).toMatch(/^timeout: The desktop did not confirm receiving the input/);
  } finally {
    await context?.close();
  }
});
