// What an owner's saved layout does, as the bridge assembles it (bridge.ts). A layout is the map
// and size of the desktops its owner owns: when saved it goes to those desktops' windows
// (layout_changed) and their recordings' masks, and sizes them (unless the operator or the
// record fixed the size); a desktop's connection opens at its size; and GET /api/layout shows
// the live desktop size. The tunnels are read through a getter: they exist once the bridge runs.
import { layoutBounds } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ApiDeps } from '../api/deps.js';
import type { Access } from '../auth/access.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import type { DesktopSizeProvider } from '../desktops/desktopSize.js';
import { readLayout } from '../layouts/storedLayouts.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import type { Recordings } from '../recordings/recordingLifecycle.js';
import type { TunnelRegistry } from '../tunnel/registry.js';

interface LayoutDeps {
  access: Access;
  directory: DesktopDirectory;
  /** The running bridge's tunnels (undefined until it listens). */
  tunnels: () => TunnelRegistry | undefined;
}

/** A person's live desktop size (GET /api/layout): the desktop's, or their default one's. */
export function liveDesktopSize({
  access,
  directory,
  tunnels,
}: LayoutDeps): NonNullable<ApiDeps['desktopSize']> {
  return async (personId: string, desktopId?: string) => {
    if (desktopId !== undefined) return tunnels()?.desktopSize(desktopId) ?? null;
    const person = await access.store.people.byId(personId);
    const mine = person === undefined ? undefined : await directory.defaultFor(person);
    return mine === undefined ? null : (tunnels()?.desktopSize(mine.entry.record.id) ?? null);
  };
}

/** A saved (or removed) layout reaches the windows and masks of what it maps, and sizes them. */
export function layoutSavedEffects({
  access,
  directory,
  tunnels,
  planes,
  recordings,
  logger,
}: LayoutDeps & {
  planes: DesktopPlanes;
  recordings: Recordings;
  logger: Logger;
}): NonNullable<ApiDeps['layoutSaved']> {
  return async (personId, _saved, desktopId) => {
    // A person's layout is the map of the desktops they own that have none of their own; a
    // desktop's own layout, of that desktop alone. Each follows what it now resolves to: its
    // windows are told, and it is sized to it.
    const affected = (await directory.list()).filter(
      (e) =>
        e.record.ownerId === personId && (desktopId === undefined || e.record.id === desktopId),
    );
    for (const entry of affected) {
      const layout = (await readLayout(access.store, personId, entry.record.id))?.layout ?? null;
      const desktopPlane = await planes.get(entry.record.id);
      desktopPlane?.hub.setLayout(layout);
      recordings.setMasks(entry.record.id, layout?.masks ?? []);
      // Back to one monitor: the desktop goes back to the size it had before a layout sized it.
      const outcome =
        layout === null
          ? await tunnels()?.restoreDesktopSize(entry.record.id)
          : await tunnels()?.resizeDesktop(entry.record.id, layoutBounds(layout));
      if (outcome !== undefined && !outcome.applied)
        logger.info(
          { desktopId: entry.record.id, reason: outcome.reason },
          'desktop not resized to the layout',
        );
    }
  };
}

/** The size a desktop's connection opens at: the record's fixed size, else its owner's layout. */
export function layoutDesktopSize({
  access,
  directory,
}: Omit<LayoutDeps, 'tunnels'>): DesktopSizeProvider {
  return async (desktopId) => {
    // A fixed size on the record wins; else the owner's layout decides.
    const entry = await directory.get(desktopId);
    if (entry === undefined) return undefined;
    const { width, height } = entry.record.params;
    if (width !== undefined && height !== undefined) return { width, height };
    const saved = await readLayout(access.store, entry.record.ownerId, desktopId);
    return saved === null ? undefined : layoutBounds(saved.layout);
  };
}
