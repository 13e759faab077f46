// Each person's monitor layout and privacy masks (GET / PUT /api/layout): one current layout per
// person, read and written only by that person in a signed-in browser — /api takes no API tokens,
// so the AI can never move or remove a mask. A save (or DELETE, back to no layout) is audited
// (layout_changed) and handed to `layoutSaved` (which pushes it to the person's viewer windows
// and sizes the desktop).
import {
  API,
  MonitorLayout,
  PutLayoutBody,
  type DesktopExtent,
  type LayoutAnswer,
  type SavedLayout,
} from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { Store } from '../store/types.js';
import type { ApiDeps } from './deps.js';
import { salvageLayout } from './layoutSalvage.js';

/**
 * The name the current layout is stored under (the monitor_layouts table keys layouts by person
 * and name; the API keeps one per person).
 */
export const CURRENT_LAYOUT_NAME = 'current';

/**
 * A person's saved layout, or null before their first save. One that no longer reads is salvaged
 * with every privacy mask kept (or null when it held none).
 */
export async function readLayout(
  store: Pick<Store, 'layouts'>,
  personId: string,
): Promise<SavedLayout | null> {
  const records = await store.layouts.list(personId);
  const record = records.find((r) => r.name === CURRENT_LAYOUT_NAME);
  if (record === undefined) return null;
  // Stored layouts were valid when saved; a rule added since must not break reading the rest,
  // nor drop a privacy mask (layoutSalvage.ts).
  const parsed = MonitorLayout.safeParse(record.layout);
  const layout = parsed.success ? parsed.data : salvageLayout(record.layout);
  return layout === null ? null : { layout, updated_at: record.updatedAt };
}

/** "monitors: 0,0 1920×1080 | 1920,0 1920×1080; masks: 10,10 300×200" (no labels: they are free text). */
function describeLayout(layout: MonitorLayout): string {
  const rects = (list: readonly { x: number; y: number; width: number; height: number }[]) =>
    list.length === 0
      ? 'none'
      : list.map((r) => `${r.x},${r.y} ${r.width}×${r.height}`).join(' | ');
  return `monitors: ${rects(layout.monitors)}; masks: ${rects(layout.masks)}`;
}

export function mountLayoutRoutes(
  app: Hono<BridgeEnv>,
  deps: Pick<ApiDeps, 'access' | 'logger' | 'desktopSize' | 'layoutSaved'>,
): void {
  const { access, logger } = deps;

  /**
   * A stored layout change (null: removed): audited, then handed to layoutSaved without holding
   * up the answer.
   */
  const changed = (
    person: { id: string; displayName: string },
    layout: MonitorLayout | null,
  ): void => {
    access.audit.record({
      kind: 'layout_changed',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      outcome: 'ok',
      detail: layout === null ? 'removed' : describeLayout(layout),
    });
    const personId = person.id;
    if (deps.layoutSaved === undefined) return;
    const failed = (err: unknown) =>
      logger.warn({ err, personId }, 'applying a saved layout failed');
    try {
      Promise.resolve(deps.layoutSaved(personId, layout)).catch(failed);
    } catch (err) {
      failed(err);
    }
  };

  /** The live desktop size, or null: a failing source must not keep the person from their layout. */
  const liveDesktop = async (personId: string): Promise<DesktopExtent | null> => {
    try {
      return (await deps.desktopSize?.(personId)) ?? null;
    } catch (err) {
      logger.warn({ err, personId }, 'reading the desktop size failed');
      return null;
    }
  };

  app.get(API.layout, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const personId = signedIn.person.id;
    const saved = await readLayout(access.store, personId);
    const answer: LayoutAnswer = {
      layout: saved?.layout ?? null,
      updated_at: saved?.updated_at ?? null,
      desktop: await liveDesktop(personId),
    };
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  app.put(API.layout, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const body = await parseJsonBody(c, PutLayoutBody);
    if (!body.ok) return body.response;
    const person = signedIn.person;
    const { layout } = body.value;
    const updatedAt = Date.now();
    await access.store.layouts.put({
      personId: person.id,
      name: CURRENT_LAYOUT_NAME,
      layout,
      updatedAt,
    });
    // Stored first: a viewer that fails to follow must not lose the person's layout.
    changed(person, layout);
    const answer: SavedLayout = { layout, updated_at: updatedAt };
    return c.json(answer);
  });

  // Back to no layout: one monitor (the whole desktop), no masks; the desktop keeps its size.
  app.delete(API.layout, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const person = signedIn.person;
    const removed = await access.store.layouts.remove(person.id, CURRENT_LAYOUT_NAME);
    if (removed) changed(person, null);
    return c.json({ removed });
  });
}
