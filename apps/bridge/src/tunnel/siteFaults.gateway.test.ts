// A gateway of a site's pool killed under the AI's calls, with real parts: a nats-server and a
// PostgreSQL on loopback, one Xvnc desktop, two of our gateways with the pool secret, and two
// bridges of one site using both as their pool. The person's window is on bridge 1 — a scripted
// viewer that carries out click_at as the real viewer does, through its own tunnel to the desktop
// — and the AI's MCP session on bridge 2. The gateway holding the desktop's connection is closed:
// the window's tunnel ends, the window reconnects and its connection opens on the other gateway
// (bridge 2 then joins it there, told by the site's places), and the AI's next calls move the
// pointer again (checked from X). Time printed: killed → the desktop shown again.
import type { ToolCallMessage } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer, type Script } from '../mcp/testing/scriptedViewer.js';
import { startSiteServers } from '../site/testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from '../site/testing/siteBridges.js';
import { openShowing, startPoolParts, type PoolParts } from '../testing/gatewayPoolParts.js';
import { type TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { pointer } from '../testing/xside.js';

const { nats, postgres, missing } = await startSiteServers();

describe.runIf(missing === undefined)('a gateway of the pool killed under the AI of a site', () => {
  let parts: PoolParts;
  let one: SiteBridge;
  let two: SiteBridge;

  beforeAll(async () => {
    parts = await startPoolParts();
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: [nats.address], token: nats.token };
    const { guacd, connection, tunnel } = parts.config();
    const bridgeConfig = { guacd, connection, tunnel };
    one = await startSiteBridge({
      name: 'g one',
      databaseUrl,
      site,
      initialMode: 'autopilot',
      bridgeConfig,
    });
    two = await startSiteBridge({
      name: 'g two',
      databaseUrl,
      site,
      initialMode: 'autopilot',
      bridgeConfig,
    });
  }, 60_000);
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await parts?.stop();
  }, 60_000);

  const at = async (x: number, y: number): Promise<boolean> => {
    const now = await pointer(parts.desktop.env);
    return now.x === x && now.y === y;
  };

  test('the desktop reconnects through the other gateway and the AI calls go on', async () => {
    const window = await ScriptedViewer.connect(one);
    expect(window.hello.role).toBe('control');
    // The window's own tunnel, as the viewer page has one; click_at moves the pointer through it.
    const tunnel: { current: TunnelClient } = {
      current: await openShowing(one.url, await one.session.ticket('tunnel')),
    };
    window.on('click_at', (call: ToolCallMessage): Script => {
      const { x, y } = call.args as { x: number; y: number };
      tunnel.current.send('mouse', x, y, 0);
      return { result: { success: true, was_confirmed: false } };
    });
    await eventually(
      'bridge 2 to see the control window on bridge 1',
      () => two.site!.remote.controlElsewhere(two.desktopId),
      10_000,
    );
    const ai = await connectClient(two, { token: TOKEN });
    const click = async (x: number, y: number): Promise<void> => {
      const result = await callTool(ai.client, 'click_at', { x, y });
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      await eventually(`the X pointer at ${String(x)},${String(y)}`, () => at(x, y), 10_000);
    };
    await click(120, 70);

    const holder = parts.gateways.findIndex((g) => g.connectionIds().length === 1);
    expect(holder).toBeGreaterThan(-1);
    const dead = parts.gateways[holder]!;
    const other = parts.gateways[1 - holder]!;
    const killedAt = performance.now();
    await dead.close();
    await tunnel.current.closed;
    // The viewer reconnects at once; the pool opens the desktop on the gateway that is left.
    tunnel.current = await openShowing(one.url, await one.session.ticket('tunnel'));
    const shownAfter = performance.now() - killedAt;
    expect(other.connectionIds()).toHaveLength(1);
    await click(222, 111);
    await click(61, 45);
    // Bridge 2 joins that connection where it lives (the site's places), not a new one.
    const second = await openShowing(two.url, await two.session.ticket('tunnel'));
    expect(other.connectionIds()).toHaveLength(1);
    expect(two.tunnels.connectionIds()).toEqual(other.connectionIds());
    await click(33, 99);
    console.log(
      `[site] gateway holding the desktop killed: the window's desktop shown again through the other gateway ${shownAfter.toFixed(0)} ms after; the AI's calls across bridges land in X again`,
    );
    await second.close();
    await tunnel.current.close();
    await ai.client.close();
    await window.close();
  }, 90_000);
});
