// Session recordings as the bridge assembles them (bridge.ts): where they are kept (the data
// dir's recordings/, or an S3 bucket checked at start), the privacy masks they hide (the desktop
// owner's layout's), the recordings an earlier run left open closed; then, once the desktop
// control runs, what feeds them: every audited action of a desktop becomes an event of its
// recording, and every window of a desktop sees its recording indicator change at once.
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Access } from '../auth/access.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { readLayout } from '../layouts/storedLayouts.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import { recordingEventsOf } from '../recordings/auditEvents.js';
import { Recordings, type RecordingsOptions } from '../recordings/recordingLifecycle.js';
import type { S3Target } from '../recordings/storage/s3Config.js';
import { S3Files } from '../recordings/storage/s3Files.js';

/**
 * serve --record makes `on` the default; --recordings-s3 keeps them in an S3 bucket (checked at
 * start: a bucket that cannot be written fails the start); tests tune the writer.
 */
export type RecordingSetup = Partial<
  Pick<
    RecordingsOptions,
    'recordByDefault' | 'writer' | 'dir' | 'retention' | 'diskSpace' | 'exportSlots'
  >
> & { s3?: S3Target | undefined };

export async function openRecordings(deps: {
  access: Access;
  directory: DesktopDirectory;
  dataDir: string;
  logger: Logger;
  setup: RecordingSetup | undefined;
}): Promise<Recordings> {
  const { access, directory, logger, setup } = deps;
  const dir = setup?.dir ?? join(resolve(deps.dataDir), 'recordings');
  const s3 =
    setup?.s3 === undefined
      ? undefined
      : await S3Files.connect(setup.s3, dir, logger.child({ part: 'recordings' }));
  const recordings = new Recordings({
    store: access.store,
    dir,
    s3,
    logger: logger.child({ part: 'recordings' }),
    recordByDefault: setup?.recordByDefault,
    writer: setup?.writer,
    retention: setup?.retention,
    diskSpace: setup?.diskSpace,
    exportSlots: setup?.exportSlots,
    // What retention deletes is audited like a deletion by a person.
    audit: (entry) => access.audit.record(entry),
    // The desktop's privacy masks are its owner's layout's, as its windows are shown them.
    masks: async (desktopId) => {
      const entry = await directory.get(desktopId);
      if (entry === undefined) return [];
      const saved = await readLayout(access.store, entry.record.ownerId, desktopId);
      return saved?.layout.masks ?? [];
    },
  });
  await recordings.recover().catch((err: unknown) => {
    logger.warn({ err }, 'recordings left open by an earlier run could not be closed');
  });
  return recordings;
}

/** Feeds the recordings from the audit and tells windows of indicator changes; returns the untap. */
export function feedRecordings(
  recordings: Recordings,
  access: Access,
  planes: DesktopPlanes,
): () => void {
  // Every audited action of a desktop is an event of its recording (auditEvents.ts).
  const untap = access.audit.tap((entry, about) => {
    if (about.desktopId === undefined) return;
    for (const event of recordingEventsOf(entry, about.intent))
      recordings.event(about.desktopId, event);
  });
  // Every window of a desktop sees its recording indicator change at once.
  recordings.onChange((desktopId) => {
    void planes.loaded().then((loaded) => {
      for (const p of loaded) if (p.desktopId === desktopId) p.hub.desktopChanged();
    });
  });
  return untap;
}
