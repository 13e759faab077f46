// The admins' storage view over HTTP: what the recordings take (those being written as written
// so far), per desktop and per person, the oldest, how many are being made, the limits in force,
// whether recordings are held for the disk's free space, and the disk's free space itself.
import type { Hono } from 'hono';
import type { BridgeEnv } from '../http/env.js';
import { requireAdmin } from '../perimeter/signedIn.js';
import { RECORDINGS_BASE as BASE, type RecordingRoutesDeps } from './routeAccess.js';
import { retentionView } from './retention.js';

export function mountStorageRoute(
  app: Hono<BridgeEnv>,
  { access, recordings }: RecordingRoutesDeps,
): void {
  const store = access.store;
  app.get(`${BASE}/storage`, requireAdmin(), async (c) => {
    const [rows, desktops, people, limits, disk] = await Promise.all([
      store.recordings.list(),
      store.desktops.list(),
      store.people.list(),
      recordings.retentionLimits(),
      recordings.diskSpace(),
    ]);
    const desktopNames = new Map(desktops.map((d) => [d.id, d.name]));
    const personNames = new Map(people.map((p) => [p.id, p.displayName]));
    const live = recordings.liveBytes();
    const perDesktop = new Map<
      string,
      { bytes: number; count: number; oldest: number; live: number }
    >();
    const perPerson = new Map<string, { bytes: number; count: number }>();
    let total = 0;
    let oldest: (typeof rows)[number] | undefined;
    for (const row of rows) {
      const bytes = live.get(row.id) ?? row.storedBytes;
      total += bytes;
      if (oldest === undefined || row.startedAt < oldest.startedAt) oldest = row;
      const d = perDesktop.get(row.desktopId) ?? {
        bytes: 0,
        count: 0,
        oldest: row.startedAt,
        live: 0,
      };
      d.bytes += bytes;
      d.count += 1;
      d.oldest = Math.min(d.oldest, row.startedAt);
      if (live.has(row.id)) d.live += 1;
      perDesktop.set(row.desktopId, d);
      const key = row.ownerId ?? '';
      const p = perPerson.get(key) ?? { bytes: 0, count: 0 };
      p.bytes += bytes;
      p.count += 1;
      perPerson.set(key, p);
    }
    const desktopRef = (id: string) => ({ id, name: desktopNames.get(id) ?? '(removed desktop)' });
    c.header('Cache-Control', 'no-store');
    return c.json({
      location: recordings.location,
      total_bytes: total,
      count: rows.length,
      live_count: live.size,
      limits: retentionView(limits),
      held: recordings.heldReason(),
      disk: disk === undefined ? null : { free_bytes: disk.freeBytes, size_bytes: disk.sizeBytes },
      oldest:
        oldest === undefined
          ? null
          : {
              id: oldest.id,
              desktop: desktopRef(oldest.desktopId),
              started_at: oldest.startedAt,
              bytes: live.get(oldest.id) ?? oldest.storedBytes,
            },
      desktops: [...perDesktop]
        .map(([id, d]) => ({
          desktop: desktopRef(id),
          bytes: d.bytes,
          count: d.count,
          live: d.live,
          oldest_started_at: d.oldest,
        }))
        .sort((a, b) => b.bytes - a.bytes || a.desktop.id.localeCompare(b.desktop.id)),
      people: [...perPerson]
        .map(([id, p]) => ({
          person: id === '' ? null : { id, name: personNames.get(id) ?? '(removed person)' },
          bytes: p.bytes,
          count: p.count,
        }))
        .sort((a, b) => b.bytes - a.bytes),
    });
  });
}
