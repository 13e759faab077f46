// Test support for the recordings' route tests: a desktop record an admin makes for someone else
// (a VNC record nobody connects to: recordings are written for it by the tests), and the ids of
// the recordings a person's list shows.
import { API } from '@overlay-companion/protocol';
import type { BrowserSession } from '../../testing/browserSession.js';

/** A desktop `admin` makes for `ownerId`; its id. */
export async function desktopOwnedBy(
  admin: BrowserSession,
  ownerId: string,
  name: string,
): Promise<string> {
  const made = await admin.request(API.desktops, {
    body: { name, kind: 'vnc', params: { host: 'vnc.example', port: 5900 }, owner_id: ownerId },
  });
  if (made.status !== 201) throw new Error(`making ${name}: ${made.status}`);
  return ((await made.json()) as { id: string }).id;
}

/** The ids of the recordings `session`'s person is listed, sorted. */
export async function listedRecordings(session: BrowserSession): Promise<string[]> {
  const res = await session.request('/api/recordings');
  if (res.status !== 200) throw new Error(`listing recordings: ${res.status}`);
  const { recordings } = (await res.json()) as { recordings: Array<{ id: string }> };
  return recordings.map((r) => r.id).sort();
}
