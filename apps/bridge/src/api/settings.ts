// Bridge-wide settings for admins (/api/settings: audit retention) and each person's monitor
// layouts (/api/layouts), kept for the multi-monitor viewer.
import {
  API,
  BridgeSettingsPatch,
  LayoutName,
  MonitorLayout,
  type BridgeSettings,
} from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { z } from 'zod';
import { AUDIT_RETENTION_KEY } from '../audit/auditLog.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { requireAdmin } from '../http/signedIn.js';
import type { ApiDeps } from './deps.js';

/** Layouts one person may keep. */
export const MAX_LAYOUTS_PER_PERSON = 50;

export function mountSettingsRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const { access } = deps;
  const store = access.store;

  const current = async (): Promise<BridgeSettings> => ({
    audit_retention_days: await access.audit.retentionDays(),
  });

  app.get(API.settings, requireAdmin(), async (c) => c.json(await current()));

  app.put(API.settings, requireAdmin(), async (c) => {
    const admin = c.get('signedIn');
    const body = await parseJsonBody(c, BridgeSettingsPatch);
    if (!body.ok) return body.response;
    if (body.value.audit_retention_days !== undefined) {
      await store.settings.set(AUDIT_RETENTION_KEY, body.value.audit_retention_days);
      await access.audit.purge();
    }
    access.audit.record({
      kind: 'settings_changed',
      actor: 'person',
      personId: admin?.person.id ?? null,
      personName: admin?.person.displayName ?? null,
      outcome: 'ok',
      detail: JSON.stringify(body.value),
    });
    return c.json(await current());
  });

  app.get(API.layouts, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const layouts = await store.layouts.list(signedIn.person.id);
    return c.json({
      layouts: layouts.flatMap((l) => {
        const parsed = MonitorLayout.safeParse(l.layout);
        return parsed.success
          ? [{ name: l.name, layout: parsed.data, updated_at: l.updatedAt }]
          : [];
      }),
    });
  });

  app.put(`${API.layouts}/:name`, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const name = LayoutName.safeParse(c.req.param('name'));
    if (!name.success)
      return apiError(c, 400, `Invalid layout name: ${name.error.issues[0]?.message ?? ''}.`, {
        field: 'name',
      });
    const body = await parseJsonBody(c, z.strictObject({ layout: MonitorLayout }));
    if (!body.ok) return body.response;
    const existing = await store.layouts.list(signedIn.person.id);
    if (existing.length >= MAX_LAYOUTS_PER_PERSON && !existing.some((l) => l.name === name.data)) {
      return apiError(c, 409, `You keep ${MAX_LAYOUTS_PER_PERSON} layouts; remove one first.`);
    }
    await store.layouts.put({
      personId: signedIn.person.id,
      name: name.data,
      layout: body.value.layout,
      updatedAt: Date.now(),
    });
    return c.json({ ok: true });
  });

  app.delete(`${API.layouts}/:name`, async (c) => {
    const signedIn = c.get('signedIn');
    if (signedIn === undefined) return apiError(c, 401, 'Sign in first.');
    const removed = await store.layouts.remove(signedIn.person.id, c.req.param('name'));
    return removed ? c.json({ ok: true }) : apiError(c, 404, 'No such layout.');
  });
}
