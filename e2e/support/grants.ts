// Giving another person access to the stack's desktop, as an admin does on /desktops: the
// desktop the command line made (the one the admin owns) and a grant for the person named.
import { API } from '@overlay-companion/protocol';
import type { BrowserSession } from '../../apps/bridge/src/testing/browserSession.js';

/** Grants `username` `level` on the admin's own desktop; returns that desktop's id. */
export async function grantAdminDesktop(
  admin: BrowserSession,
  username: string,
  level: 'view' | 'control',
): Promise<string> {
  const desktops = (await (await admin.request(API.desktops)).json()) as {
    desktops: Array<{ id: string; access: string }>;
  };
  const own = desktops.desktops.find((d) => d.access === 'owner');
  if (own === undefined) throw new Error('the admin owns no desktop');
  const people = (await (await admin.request(API.people)).json()) as {
    people: Array<{ id: string; username: string }>;
  };
  const person = people.people.find((p) => p.username === username);
  if (person === undefined) throw new Error(`no person ${username}`);
  const answer = await admin.request(`${API.desktops}/${own.id}/grants/${person.id}`, {
    method: 'PUT',
    body: { level },
  });
  if (!answer.ok) throw new Error(`granting ${username}: ${answer.status} ${await answer.text()}`);
  return own.id;
}
