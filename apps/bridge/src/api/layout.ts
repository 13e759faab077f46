// Monitor layouts and privacy masks (GET / PUT / DELETE /api/layout): a person's own layout —
// the map of every desktop they own — or, with `?desktop=<id>`, one desktop's own layout, which
// wins over its owner's for that desktop; anyone who may see the desktop reads it, only its owner
// or an admin changes it (stored with the owner). Read and written only in a signed-in browser —
// /api takes no API tokens, so the AI can never move or remove a mask. A save (or DELETE, back
// to no layout) is audited (layout_changed) and handed to `layoutSaved` (which pushes it to the
// desktops' viewer windows and sizes them).
import {
  API,
  MonitorLayout,
  PutLayoutBody,
  type DesktopExtent,
  type LayoutAnswer,
  type SavedLayout,
} from '@overlay-companion/protocol';
import type { Context, Hono } from 'hono';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { PersonRecord } from '../store/types.js';
import type { ApiDeps } from './deps.js';
import { CURRENT_LAYOUT_NAME, desktopLayoutName, readLayout } from '../layouts/storedLayouts.js';

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
  deps: Pick<ApiDeps, 'access' | 'logger' | 'desktopSize' | 'layoutSaved' | 'directory'>,
): void {
  const { access, logger } = deps;

  type Whose =
    | { ok: true; ownerId: string; name: string; desktopId: string | undefined; what: string }
    | { ok: false; response: Response };
  /**
   * Whose layout a request means: `?desktop=<id>` (a desktop the person may see; changing it is
   * its owner's or an admin's), else the person's own.
   */
  const whose = async (
    c: Context<BridgeEnv>,
    person: PersonRecord,
    writing: boolean,
  ): Promise<Whose> => {
    const desktopId = c.req.query('desktop');
    if (desktopId === undefined || desktopId === '')
      return {
        ok: true,
        ownerId: person.id,
        name: CURRENT_LAYOUT_NAME,
        desktopId: undefined,
        what: 'own',
      };
    const found = await deps.directory?.accessFor(person, desktopId);
    if (found === undefined)
      return {
        ok: false,
        response: apiError(c, 404, 'No such desktop of yours; pick one on the Desktops page.'),
      };
    if (writing && found.access !== 'owner' && found.access !== 'admin')
      return {
        ok: false,
        response: apiError(
          c,
          403,
          `Only the owner of ${found.entry.record.name} or an admin arranges its monitors and masks.`,
        ),
      };
    return {
      ok: true,
      ownerId: found.entry.record.ownerId,
      name: desktopLayoutName(desktopId),
      desktopId,
      what: `desktop ${found.entry.record.name}`,
    };
  };

  /**
   * A stored layout change (null: removed): audited, then handed to layoutSaved without holding
   * up the answer.
   */
  const changed = (
    person: { id: string; displayName: string },
    layout: MonitorLayout | null,
    target: { ownerId: string; desktopId: string | undefined; what: string },
  ): void => {
    access.audit.record({
      kind: 'layout_changed',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      outcome: 'ok',
      detail: `${target.what === 'own' ? '' : `${target.what}: `}${layout === null ? 'removed' : describeLayout(layout)}`,
    });
    const personId = target.ownerId;
    if (deps.layoutSaved === undefined) return;
    const failed = (err: unknown) =>
      logger.warn({ err, personId }, 'applying a saved layout failed');
    try {
      Promise.resolve(deps.layoutSaved(personId, layout, target.desktopId)).catch(failed);
    } catch (err) {
      failed(err);
    }
  };

  /** The live desktop size, or null: a failing source must not keep the person from their layout. */
  const liveDesktop = async (
    personId: string,
    desktopId: string | undefined,
  ): Promise<DesktopExtent | null> => {
    try {
      return (await deps.desktopSize?.(personId, desktopId)) ?? null;
    } catch (err) {
      logger.warn({ err, personId }, 'reading the desktop size failed');
      return null;
    }
  };

  app.get(API.layout, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const target = await whose(c, signedIn.person, false);
    if (!target.ok) return target.response;
    const saved = await readLayout(access.store, target.ownerId, target.desktopId);
    const answer: LayoutAnswer = {
      layout: saved?.layout ?? null,
      updated_at: saved?.updated_at ?? null,
      desktop: await liveDesktop(signedIn.person.id, target.desktopId),
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
    const target = await whose(c, person, true);
    if (!target.ok) return target.response;
    const { layout } = body.value;
    const updatedAt = Date.now();
    await access.store.layouts.put({
      personId: target.ownerId,
      name: target.name,
      layout,
      updatedAt,
    });
    // Stored first: a viewer that fails to follow must not lose the person's layout.
    changed(person, layout, target);
    const answer: SavedLayout = { layout, updated_at: updatedAt };
    return c.json(answer);
  });

  // Back to no layout: one monitor (the whole desktop), no masks; the desktop keeps its size.
  app.delete(API.layout, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const person = signedIn.person;
    const target = await whose(c, person, true);
    if (!target.ok) return target.response;
    const removed = await access.store.layouts.remove(target.ownerId, target.name);
    if (removed) changed(person, null, target);
    return c.json({ removed });
  });
}
