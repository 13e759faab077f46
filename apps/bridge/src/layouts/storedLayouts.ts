// What a saved layout is, read back: the names layouts are stored under (a person's current
// layout, one desktop's own) and readLayout, which salvages a stored layout that no longer parses
// without dropping a privacy mask. Used by the /api/layout routes, the desktops' planes (the map
// sent to windows) and the bridge's assembly (the size a desktop opens at) — kept out of the
// route file so MCP code reading a layout does not import HTTP code.
import { MonitorLayout, type SavedLayout } from '@overlay-companion/protocol';
import type { Store } from '../store/types.js';
import { salvageLayout } from './layoutSalvage.js';

/**
 * The name the current layout is stored under (the monitor_layouts table keys layouts by person
 * and name; the API keeps one per person).
 */
export const CURRENT_LAYOUT_NAME = 'current';

/**
 * The name one desktop's own layout is stored under, with its owner's person id: it wins over
 * the owner's layout for that desktop alone (several desktops of one owner, an admin arranging
 * another owner's desktop).
 */
export function desktopLayoutName(desktopId: string): string {
  return `desktop:${desktopId}`;
}

/**
 * A person's saved layout, or null before their first save. One that no longer reads is salvaged
 * with every privacy mask kept (or null when it held none).
 */
export async function readLayout(
  store: Pick<Store, 'layouts'>,
  personId: string,
  /** A desktop of theirs: its own layout when one was saved for it, else the person's. */
  desktopId?: string,
): Promise<SavedLayout | null> {
  const records = await store.layouts.list(personId);
  const record =
    (desktopId === undefined
      ? undefined
      : records.find((r) => r.name === desktopLayoutName(desktopId))) ??
    records.find((r) => r.name === CURRENT_LAYOUT_NAME);
  if (record === undefined) return null;
  // Stored layouts were valid when saved; a rule added since must not break reading the rest,
  // nor drop a privacy mask (layoutSalvage.ts).
  const parsed = MonitorLayout.safeParse(record.layout);
  const layout = parsed.success ? parsed.data : salvageLayout(record.layout);
  return layout === null ? null : { layout, updated_at: record.updatedAt };
}
