// Bridge-wide settings for admins (/api/settings: audit retention). Each person's monitor layout
// is in layout.ts.
import { API, BridgeSettingsPatch, type BridgeSettings } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { AUDIT_RETENTION_KEY } from '../audit/auditLog.js';
import { parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { requireAdmin } from '../http/signedIn.js';
import type { ApiDeps } from './deps.js';

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
}
