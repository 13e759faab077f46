// Recording settings over HTTP: the bridge's (admins: the default, whether a person may turn
// recording off, retention's limits — which apply at once), each desktop's own setting (its owner
// or an admin; audited as a desktop change) and the person in charge's choice where the setting
// leaves it to them. Every change reconsiders the desktops' recordings at once.
import { API } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import { z } from 'zod';
import { mayManage } from '../desktops/desktopAccess.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { requireAdmin } from '../perimeter/signedIn.js';
import type { DesktopRecord } from '../store/types.js';
import { RetentionPatch } from './retention.js';
import { NO_DESKTOP, type RecordingRoutesDeps, type RouteAccess } from './routeAccess.js';

const ModeRequest = z.strictObject({ mode: z.enum(['off', 'on', 'person']) });
const ChoiceRequest = z.strictObject({ on: z.boolean() });
const SettingsRequest = z.strictObject({
  default_mode: z.enum(['off', 'on', 'person']).optional(),
  person_may_turn_off: z.boolean().optional(),
  /** How long and how much is kept (retention.ts); each field optional, null: no limit. */
  retention: RetentionPatch.optional(),
});

export function mountSettingsRoutes(
  app: Hono<BridgeEnv>,
  deps: RecordingRoutesDeps,
  { desktopFor, auditSetting }: RouteAccess,
): void {
  const { access, recordings } = deps;
  const store = access.store;
  const { policy } = recordings;

  app.get(`${API.settings}/recording`, requireAdmin(), async (c) =>
    c.json(await policy.bridgeSettings()),
  );

  app.put(`${API.settings}/recording`, requireAdmin(), async (c) => {
    const admin = c.get('signedIn')?.person;
    const body = await parseJsonBody(c, SettingsRequest);
    if (!body.ok) return body.response;
    await policy.setBridgeSettings(body.value);
    access.audit.record({
      kind: 'settings_changed',
      actor: 'person',
      personId: admin?.id ?? null,
      personName: admin?.displayName ?? null,
      outcome: 'ok',
      detail: `recording ${JSON.stringify(body.value)}`,
    });
    for (const desktop of await store.desktops.list()) void recordings.reconsider(desktop.id);
    // New limits apply at once: what they no longer keep goes now.
    if (body.value.retention !== undefined) await recordings.enforceRetention();
    return c.json(await policy.bridgeSettings());
  });

  const desktopRecording = async (desktopId: string, inCharge: boolean) => {
    const decision = await policy.decide(desktopId);
    return {
      mode: decision.own,
      effective_mode: decision.mode,
      choice: decision.choice,
      person_may_turn_off: decision.personMayTurnOff,
      ...recordings.indicator(desktopId, { inCharge }),
    };
  };

  app.get(`${API.desktops}/:id/recording`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const { desktop, access: level } = await desktopFor(person, c.req.param('id'));
    if (desktop === undefined || level === null) return apiError(c, 404, NO_DESKTOP);
    c.header('Cache-Control', 'no-store');
    return c.json(await desktopRecording(desktop.id, inChargeOf(desktop) === person.id));
  });

  app.put(`${API.desktops}/:id/recording`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const { desktop, access: level } = await desktopFor(person, c.req.param('id'));
    if (desktop === undefined || level === null) return apiError(c, 404, NO_DESKTOP);
    if (!mayManage(level))
      return apiError(c, 403, 'Only the desktop’s owner or an admin can change its recording.');
    const body = await parseJsonBody(c, ModeRequest);
    if (!body.ok) return body.response;
    const { mode } = body.value;
    if (mode === 'off' && person.role !== 'admin') {
      const settings = await policy.bridgeSettings();
      if (!settings.person_may_turn_off)
        return apiError(
          c,
          403,
          'An admin decided that recording may not be turned off here; ask an admin.',
          { field: 'mode' },
        );
    }
    await store.recordings.setDesktopMode(desktop.id, mode);
    auditSetting(person, desktop, `recording: ${mode}`);
    await recordings.reconsider(desktop.id);
    return c.json(await desktopRecording(desktop.id, inChargeOf(desktop) === person.id));
  });

  app.put(`${API.desktops}/:id/recording/choice`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const { desktop, access: level } = await desktopFor(person, c.req.param('id'));
    if (desktop === undefined || level === null) return apiError(c, 404, NO_DESKTOP);
    const body = await parseJsonBody(c, ChoiceRequest);
    if (!body.ok) return body.response;
    const plane = await deps.planes.get(desktop.id);
    const inCharge = plane?.inCharge().id ?? inChargeOf(desktop);
    if (inCharge !== person.id)
      return apiError(c, 403, 'Only the person in charge of this desktop chooses its recording.');
    const decision = await policy.decide(desktop.id);
    if (decision.mode !== 'person')
      return apiError(
        c,
        409,
        `This desktop’s recording is set to "${decision.mode}" by its owner or an admin, not left to the person in charge.`,
      );
    if (!body.value.on && !decision.personMayTurnOff)
      return apiError(c, 403, 'An admin decided that recording may not be turned off here.', {
        field: 'on',
      });
    await policy.setChoice(desktop.id, body.value.on);
    auditSetting(
      person,
      desktop,
      `recording chosen ${body.value.on ? 'on' : 'off'} by the person in charge`,
    );
    await recordings.reconsider(desktop.id);
    return c.json(await desktopRecording(desktop.id, true));
  });
}

function inChargeOf(desktop: DesktopRecord): string {
  return desktop.inChargeId ?? desktop.ownerId;
}
