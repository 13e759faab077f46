// What a person does at their windows reaches only their own AI, and only while they are in
// charge: a watcher's window is asked to stream nothing (so it neither sends its person's input
// nor says an AI reads it), and after the charge moves the previous person's AI — whose
// subscription was made while it was in charge — gets none of the new person's events, not even
// through the events:// resource (which no tool gate guards). Real bridge, real MCP client,
// SCRIPTED VIEWERS.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { addPerson, createToken, type OtherPerson } from './testing/people.js';
import { ofType, settle } from './testing/viewers.js';

let bridge: TestBridge;
let bob: OtherPerson;
let admin: ScriptedViewer;
let bobViewer: ScriptedViewer;
let client: Client;

beforeAll(async () => {
  bridge = await startTestBridge({ permissions: { read_pointer_events: true } });
  bob = await addPerson(bridge.session, 'bob', { grant: 'control' });
  bridge.desktopControl.directory.invalidate();
  admin = await ScriptedViewer.connect(bridge);
  bobViewer = await ScriptedViewer.connect(bob.session);
  ({ client } = await connectClient(bridge));
});

afterAll(async () => {
  await client?.close();
  await admin?.close();
  await bobViewer?.close();
  await bridge.close();
});

const interestAt = (viewer: ScriptedViewer) => ofType(viewer, 'event_interest').at(-1)?.events;
const click = (x: number) => ({
  type: 'event',
  event: { type: 'mouse_click', at: Date.now(), data: { x, y: 5, button: 'left' } },
});

describe("a person's input reaches only their own AI, while they are in charge", () => {
  let subscription = '';

  it("asks only the in-charge person's windows to stream", async () => {
    const made = await callTool(client, 'subscribe_events', {
      events: ['mouse_click'],
      debounce_ms: 0,
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    subscription = String((made.structuredContent as { subscription_id: string }).subscription_id);
    await waitUntil(() => interestAt(admin)?.includes('mouse_click') === true);
    await settle(bobViewer);
    expect(interestAt(bobViewer)).toEqual([]);
    admin.send(click(11));
    const got = await callTool(client, 'get_events', { subscription_id: subscription });
    expect(JSON.stringify(got.structuredContent)).toContain('"x":11');
  });

  it("gives the previous person's AI none of the new person's events after a hand-over", async () => {
    await bridge.desktopControl.planes.updatePermissions(bob.person.id, {
      read_pointer_events: true,
    });
    admin.send({ type: 'charge', action: 'hand_over', to: bob.person.id });
    await waitUntil(() => bobViewer.desktopStates.at(-1)?.you.in_charge === true);
    await waitUntil(() => interestAt(admin)?.length === 0);
    // Bob's own windows are asked for nothing either: no AI of his subscribed.
    expect(interestAt(bobViewer)).toEqual([]);
    // Bob's own AI subscribes: his windows stream his clicks, to his AI only.
    const token = await createToken(bob.session, 'bob laptop');
    const bobAi = (await connectClient(bridge, { token: token.secret })).client;
    try {
      const his = await callTool(bobAi, 'subscribe_events', {
        events: ['mouse_click'],
        debounce_ms: 0,
      });
      expect(his.isError, JSON.stringify(his.content)).toBeFalsy();
      const hisId = String((his.structuredContent as { subscription_id: string }).subscription_id);
      await waitUntil(() => interestAt(bobViewer)?.includes('mouse_click') === true);
      expect(interestAt(admin)).toEqual([]);
      bobViewer.send(click(22));
      const mine = await callTool(bobAi, 'get_events', { subscription_id: hisId });
      expect(JSON.stringify(mine.structuredContent)).toContain('"x":22');
      // The admin's AI, subscribed since it was in charge, reads none of it.
      const read = await client.readResource({ uri: `events://${subscription}` });
      const text = read.contents[0] && 'text' in read.contents[0] ? read.contents[0].text : '';
      expect(text).not.toContain('"x":22');
    } finally {
      await bobAi.close();
    }
  });
});
