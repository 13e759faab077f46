// Bridge-wide settings for admins (/api/settings: audit retention, whether members may add
// desktops, how many local desktops of a member's may run at once). Each person's monitor layout
// is in layout.ts.
import { API, BridgeSettingsPatch, type BridgeSettings } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { AUDIT_RETENTION_KEY } from '../audit/auditLog.js';
import { parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { requireAdmin } from '../perimeter/signedIn.js';
import type { Store } from '../store/types.js';
import {
  MEMBER_RUNNING_LOCAL_DESKTOPS_KEY,
  memberRunningLocalDesktops,
} from '../desktops/runningLimit.js';
import type { ApiDeps } from './deps.js';

/** The settings key of BridgeSettings.people_may_add_desktops (false when never set). */
export const PEOPLE_MAY_ADD_DESKTOPS_KEY = 'people_may_add_desktops';

/** Whether members may add desktops of their own (admins always may). */
export async function peopleMayAddDesktops(store: Pick<Store, 'settings'>): Promise<boolean> {
  return (await store.settings.get(PEOPLE_MAY_ADD_DESKTOPS_KEY)) === true;
}

export function mountSettingsRoutes(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  const { access } = deps;
  const store = access.store;

  const current = async (): Promise<BridgeSettings> => ({
    audit_retention_days: await access.audit.retentionDays(),
    people_may_add_desktops: await peopleMayAddDesktops(store),
    member_running_local_desktops: await memberRunningLocalDesktops(store),
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
    if (body.value.people_may_add_desktops !== undefined) {
      await store.settings.set(PEOPLE_MAY_ADD_DESKTOPS_KEY, body.value.people_may_add_desktops);
    }
    if (body.value.member_running_local_desktops !== undefined) {
      await store.settings.set(
        MEMBER_RUNNING_LOCAL_DESKTOPS_KEY,
        body.value.member_running_local_desktops,
      );
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
