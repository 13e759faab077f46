// The set-up of the specs that watch two desktops at once (fleet, uiTour): the stack's own
// "Desktop" and a second real Xvnc ("Second", a VNC server on a loopback port added over
// /api/desktops), an MCP client (the SDK's) on each, and one signed-in browser context with a
// control window per desktop — they run each desktop's AI calls and ask its approvals. `close`
// leaves the shared stack with its one desktop again.
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { API, type DesktopView } from '@overlay-companion/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { expect } from '../fixtures.js';
import type { RunningStack } from './bridgeProcess.js';
import { callTool, connectMcp, openViewerAt, viewerRole } from './controlPlane.js';
import { adminSession, signInContextAs } from './signIn.js';
import { listDesktops, removeDesktopsBut } from './fleetPage.js';

export interface TwoDesktops {
  second: TcpLocalDesktop;
  firstId: string;
  secondId: string;
  /** The AI on Desktop, and the AI on Second. */
  ai1: Client;
  ai2: Client;
  context: BrowserContext;
  /** Desktop's and Second's control windows. */
  viewer1: Page;
  viewer2: Page;
  close: () => Promise<void>;
}

export async function openTwoDesktops(
  browser: Browser,
  stack: RunningStack,
  options: {
    password: string;
    viewport: { width: number; height: number };
    /** Runs once Second's X server is up, before the bridge knows it. */
    prepare?: (second: TcpLocalDesktop) => Promise<void>;
  },
): Promise<TwoDesktops> {
  const second = await startLocalDesktop({ rfbTcp: true, password: options.password, xterm: true });
  await options.prepare?.(second);
  const admin = await adminSession(stack);
  const added = await admin.request(API.desktops, {
    body: {
      name: 'Second',
      kind: 'vnc',
      params: { host: '127.0.0.1', port: second.port },
      secrets: { password: options.password },
    },
  });
  expect(added.status, await added.clone().text()).toBe(201);
  const secondId = ((await added.json()) as DesktopView).id;
  // The command line's desktop is made when the directory first loads (an AI call does it).
  const ai1 = await connectMcp(stack);
  expect((await callTool(ai1, 'list_desktops', {})).isError).toBe(false);
  const listed = await listDesktops(admin);
  const first = listed.find((d) => d.id !== secondId);
  if (first === undefined) throw new Error(`no first desktop: ${JSON.stringify(listed)}`);
  const firstId = first.id;
  expect((await callTool(ai1, 'select_desktop', { desktop: firstId })).isError).toBe(false);
  const ai2 = await connectMcp(stack);
  expect((await callTool(ai2, 'select_desktop', { desktop: secondId })).isError).toBe(false);

  const context = await browser.newContext({ viewport: options.viewport });
  await signInContextAs(context, stack.url, stack.admin);
  const viewer1 = await context.newPage();
  await openViewerAt(viewer1, stack, `/?desktop=${firstId}`);
  const viewer2 = await context.newPage();
  await openViewerAt(viewer2, stack, `/?desktop=${secondId}`);
  await expect.poll(() => viewerRole(viewer1)).toBe('control');
  await expect.poll(() => viewerRole(viewer2)).toBe('control');
  return {
    second,
    firstId,
    secondId,
    ai1,
    ai2,
    context,
    viewer1,
    viewer2,
    close: async () => {
      await ai1.close();
      await ai2.close();
      await context.close();
      await removeDesktopsBut(await adminSession(stack), firstId);
      await second.stop();
    },
  };
}
