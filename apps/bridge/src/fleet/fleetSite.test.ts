// The fleet tile tells the truth about a desktop in a site (fleetState.ts): its AI clients are
// the site's (the same merged list the windows show) and its control window may be on any bridge.
// Real site: nats-server and PostgreSQL (site/testing/siteServers.ts), two bridges in this
// process, the AI's MCP SDK client on bridge 2, a SCRIPTED VIEWER (the person's window) on
// bridge 1, and a scripted fleet page (a plain WebSocket) on each bridge.
import type { FleetDesktop } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { postgresRequired } from '../store/testing/postgres.js';
import { natsRequired } from '../site/testing/natsServer.js';
import { startSiteServers } from '../site/testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from '../site/testing/siteBridges.js';
import { waitUntil } from '../site/testing/waitUntil.js';
import { FleetClient } from './testing/fleetClient.js';

const { nats, postgres, missing } = await startSiteServers();

test('nats-server and PostgreSQL run the site fleet suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired() || postgresRequired()) throw new Error(`site tests cannot run: ${missing}`);
  ctx.skip(missing);
});

describe.runIf(missing === undefined)('the fleet tile of a desktop in a site', () => {
  let one: SiteBridge;
  let two: SiteBridge;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: [nats.address], token: nats.token };
    one = await startSiteBridge({ name: 'fleet-windows', databaseUrl, site });
    two = await startSiteBridge({ name: 'fleet-ai', databaseUrl, site });
  });
  afterAll(async () => {
    for (const each of opened.splice(0).reverse()) await each.close().catch(() => undefined);
    await two?.close();
    await one?.close();
  });

  async function open<T extends { close(): Promise<void> }>(made: Promise<T>): Promise<T> {
    const each = await made;
    opened.push(each);
    return each;
  }

  const tileOf = (desktops: FleetDesktop[], id: string): FleetDesktop | undefined =>
    desktops.find((d) => d.id === id);

  test('a bridge that makes the plane after the others listed their AI clients shows them', async () => {
    const desktopId = one.desktopId;
    expect(await one.desktopControl.planes.ifLoaded(desktopId)).toBeUndefined();
    const { client, transport } = await connectClient(two, { token: TOKEN });
    const plane2 = await two.desktopControl.planes.ifLoaded(desktopId);
    await waitUntil(() => (plane2?.aiClientsHere.length ?? 0) > 0, 5000);
    // Bridge 2 listed them on the bus, then issues the ticket there too (one connection, in
    // order): by the time bridge 1 takes the ticket, it has heard the list. Its fleet feed makes
    // the plane, whose first state shows the client, with no refresh of the list to wait for.
    const fleet = await open(
      FleetClient.connect({ ...one.session, ticket: (socket) => two.session.ticket(socket) }),
    );
    expect(await one.desktopControl.planes.ifLoaded(desktopId)).toBeDefined();
    expect(tileOf(fleet.desktops, desktopId)?.ai_clients).toHaveLength(1);
    // The client leaves: bridge 2 says so, and the tile follows.
    await transport.terminateSession(); // DELETE /mcp ends the session
    await client.close();
    await fleet.waitForState((d) => tileOf(d, desktopId)?.ai_clients.length === 0);
  });

  test("the AI's client on bridge 2 and the window on bridge 1: both tiles say so", async () => {
    const desktopId = one.desktopId;
    const fleetOne = await open(FleetClient.connect(one.session));
    const fleetTwo = await open(FleetClient.connect(two.session));
    // The person's window on bridge 1 (the control window), known on bridge 2 by its lease.
    const window = await open(ScriptedViewer.connect(one));
    await waitUntil(async () => (await two.site!.remote.holder(desktopId)) !== undefined, 5000);
    const { client } = await connectClient(two, { token: TOKEN });
    opened.push(client);

    // Bridge 1's tile lists the client whose session is on bridge 2.
    const onOne = tileOf(
      await fleetOne.waitForState((d) => (tileOf(d, desktopId)?.ai_clients.length ?? 0) > 0),
      desktopId,
    );
    expect(onOne?.ai_clients[0]?.client.name).toMatch(/.+/);
    expect(onOne).toMatchObject({ control_window: true, error: null });

    // Bridge 2's tile: a control window is open (on bridge 1), so no error.
    const onTwo = tileOf(
      await fleetTwo.waitForState((d) => tileOf(d, desktopId)?.control_window === true),
      desktopId,
    );
    expect(onTwo?.ai_clients).toHaveLength(1);
    expect(onTwo?.error).toBeNull();

    // The window closes: bridge 2's tile says the AI cannot act, with no timer to carry it.
    await window.close();
    const after = tileOf(
      await fleetTwo.waitForState((d) => tileOf(d, desktopId)?.control_window === false),
      desktopId,
    );
    expect(after?.ai_clients).toHaveLength(1);
    expect(after?.error).toMatch(/No window of .+ is open on it: its AI cannot act/);
  });
});
