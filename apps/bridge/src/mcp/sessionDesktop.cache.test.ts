// The session keeps its token's person between calls (sessionDesktop.ts) instead of reading the
// store on each one; these show the kept record never outlives a change: a role taken away by an
// admin here, a change another bridge of the site made (told as tokens_invalidated, which the
// site applies with ApiTokenAuth.invalidate(…, 'site')), and a grant withdrawn refuse the very
// next call. Each first warms the session with calls that succeed. Real bridge (SQLite), real
// people made over the API, real MCP SDK clients.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPerson, createToken, type OtherPerson } from '../perimeter/testing/people.js';
import { callTool, errorOf } from './testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from './testing/fixtures.js';

let bridge: TestBridge;
let desktopId: string;

beforeAll(async () => {
  bridge = await startTestBridge();
  const id = await bridge.desktopControl.directory.cliDesktopId();
  if (id === undefined) throw new Error('no desktop');
  desktopId = id;
});
afterAll(async () => {
  await bridge.close();
});

/** A person, their AI's connected client, and a call that needs their access to the desktop. */
async function personWithAi(
  username: string,
  options: Parameters<typeof addPerson>[2],
): Promise<{ person: OtherPerson; client: Client; call: () => ReturnType<typeof callTool> }> {
  const person = await addPerson(bridge.session, username, options);
  const token = await createToken(person.session, `${username} ai`);
  const { client } = await connectClient(bridge, { token: token.secret });
  // list_desktops naming the desktop: the session finds it for this person on every call.
  const call = () => callTool(client, 'list_desktops', { desktop: desktopId });
  return { person, client, call };
}

async function warm(call: () => ReturnType<typeof callTool>): Promise<void> {
  for (let i = 0; i < 3; i++) expect((await call()).isError).not.toBe(true);
}

/** The call is refused as one for a desktop this person may not use. */
async function refused(call: () => ReturnType<typeof callTool>): Promise<void> {
  const error = errorOf(await call());
  expect(error.kind).toBe('permission_denied');
  expect(error.message).toContain('may use no desktop');
}

/**
 * A person and their AI: the session is warmed with calls that succeed, then `change` is made
 * (given the person's id) and the next call is checked with `check`.
 */
async function nextCallAfter(
  username: string,
  options: Parameters<typeof addPerson>[2],
  change: (personId: string) => Promise<void>,
  check: (call: () => ReturnType<typeof callTool>) => Promise<void> = refused,
): Promise<void> {
  const { person, client, call } = await personWithAi(username, options);
  try {
    await warm(call);
    await change(person.person.id);
    await check(call);
  } finally {
    await client.close();
  }
}

/** An admin changes the person over the API. */
async function patchPerson(personId: string, body: Record<string, unknown>): Promise<void> {
  const answer = await bridge.session.request(`${API.people}/${personId}`, {
    method: 'PATCH',
    body,
  });
  expect(answer.status).toBe(200);
}

describe("the session's kept person", () => {
  it('is dropped when an admin takes the role away: the next call is refused', async () => {
    await nextCallAfter('carol', { role: 'admin' }, (id) => patchPerson(id, { role: 'member' }));
  });

  it('is dropped when another bridge of the site says the person changed', async () => {
    await nextCallAfter('dave', { role: 'admin' }, async (id) => {
      // Another bridge on the same database demoted Dave and told the site; this is how the
      // site's tokens_invalidated message is applied here (site/joinSite.ts).
      await bridge.access.store.people.update(id, { role: 'member' });
      await bridge.access.tokens.invalidate({ personId: id }, 'site');
    });
  });

  it('does not outlive a withdrawn grant: the next call is refused', async () => {
    await nextCallAfter('erin', { grant: 'view' }, async (id) => {
      const path = `${API.desktops}/${desktopId}/grants/${id}`;
      expect((await bridge.session.request(path, { method: 'DELETE' })).status).toBeLessThan(300);
    });
  });

  it('does not outlive a disabled account', async () => {
    await nextCallAfter(
      'frank',
      { role: 'admin' },
      (id) => patchPerson(id, { disabled: true }),
      async (call) => {
        // The session is ended (the transport refuses), or the call is refused: never answered.
        const after = await call().then(
          (result) => result.isError === true,
          () => true,
        );
        expect(after).toBe(true);
      },
    );
  });
});
