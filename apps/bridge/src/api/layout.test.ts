// The monitor layout API over real HTTP on a real bridge: GET before and after a save (with the
// live desktop size from desktopSize), PUT stored exactly, audited and handed to layoutSaved;
// refusals that name the field (overlapping monitors, masks off the layout, bad numbers) change
// nothing; each person reads and writes only their own layout; an API token (the AI) can neither
// read nor change it, so masks stay where the person put them.
import {
  API,
  type AuditPage,
  type LayoutAnswer,
  type MonitorLayout,
  type SavedLayout,
} from '@overlay-companion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { TOKEN, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { addPerson } from '../perimeter/testing/people.js';
import { originOf, type BrowserSession } from '../testing/browserSession.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Saved {
  personId: string;
  layout: MonitorLayout | null;
}

async function bridge(
  options: Parameters<typeof startTestBridge>[0] = {},
): Promise<TestBridge & { saved: Saved[] }> {
  const saved: Saved[] = [];
  const b = await startTestBridge({
    layoutSaved: (personId, layout) => {
      saved.push({ personId, layout });
    },
    ...options,
  });
  closers.push(() => b.close());
  return { ...b, saved };
}

const TWO_SCREENS: MonitorLayout = {
  monitors: [
    { x: 0, y: 0, width: 1920, height: 1080, label: 'left', screen: { width: 1920, height: 1080 } },
    { x: 1920, y: 0, width: 1280, height: 1024, label: 'right' },
  ],
  masks: [{ x: 100, y: 50, width: 400, height: 300, label: 'mail' }],
};

async function read(session: BrowserSession): Promise<LayoutAnswer> {
  const res = await session.request(API.layout);
  expect(res.status).toBe(200);
  return (await res.json()) as LayoutAnswer;
}

async function put(session: BrowserSession, layout: unknown): Promise<Response> {
  return session.request(API.layout, { method: 'PUT', body: { layout } });
}

async function refusal(res: Response): Promise<{ error: string; field?: string }> {
  expect(res.status).toBe(400);
  return (await res.json()) as { error: string; field?: string };
}

describe('GET / PUT /api/layout', () => {
  it('has no layout before the first save, and shows the desktop size when the bridge knows it', async () => {
    const asked: string[] = [];
    const b = await bridge({
      desktopSize: (personId) => {
        asked.push(personId);
        return { width: 1280, height: 800 };
      },
    });
    expect(await read(b.session)).toEqual({
      layout: null,
      updated_at: null,
      desktop: { width: 1280, height: 800 },
    });
    expect(asked).toEqual([b.admin.id]);
  });

  it('stores the layout exactly, answers what it stored, audits it and hands it to layoutSaved', async () => {
    const b = await bridge();
    const before = Date.now();
    const res = await put(b.session, TWO_SCREENS);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as SavedLayout;
    expect(answer.layout).toEqual(TWO_SCREENS);
    expect(answer.updated_at).toBeGreaterThanOrEqual(before);
    expect(await read(b.session)).toEqual({
      layout: TWO_SCREENS,
      updated_at: answer.updated_at,
      desktop: null,
    });
    expect(b.saved).toEqual([{ personId: b.admin.id, layout: TWO_SCREENS }]);

    await b.access.audit.flush();
    const audit = (await (
      await b.session.request(`${API.audit}?kind=layout_changed`)
    ).json()) as AuditPage;
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      kind: 'layout_changed',
      actor: 'person',
      person_id: b.admin.id,
      outcome: 'ok',
      detail: 'monitors: 0,0 1920×1080 | 1920,0 1280×1024; masks: 100,50 400×300',
    });
  });

  it('DELETE goes back to no layout (audited, handed on as null); a second DELETE changes nothing', async () => {
    const b = await bridge();
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    const removed = await b.session.request(API.layout, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ removed: true });
    expect((await read(b.session)).layout).toBeNull();
    expect(b.saved.at(-1)).toEqual({ personId: b.admin.id, layout: null });
    const again = await b.session.request(API.layout, { method: 'DELETE' });
    expect(await again.json()).toEqual({ removed: false });
    expect(b.saved).toHaveLength(2);
  });

  it('fills in no masks, and a later save replaces the whole layout', async () => {
    const b = await bridge();
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    const one = { monitors: [{ x: 0, y: 0, width: 800, height: 600 }] };
    expect((await put(b.session, one)).status).toBe(200);
    expect((await read(b.session)).layout).toEqual({ ...one, masks: [] });
  });

  it('refuses bad layouts with the field at fault and keeps the saved one', async () => {
    const b = await bridge();
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    const cases: Array<{ layout: unknown; field: string; says: RegExp }> = [
      {
        layout: {
          monitors: [
            { x: 0, y: 0, width: 1920, height: 1080 },
            { x: 1900, y: 0, width: 1920, height: 1080 },
          ],
        },
        field: 'layout.monitors.1',
        says: /overlaps monitor 0 .*may touch but not overlap/,
      },
      {
        layout: {
          monitors: [{ x: 0, y: 0, width: 1920, height: 1080 }],
          masks: [{ x: 1800, y: 0, width: 200, height: 100 }],
        },
        field: 'layout.masks.0',
        says: /reaches outside the layout \(1920 × 1080\)/,
      },
      {
        layout: { monitors: [{ x: -1, y: 0, width: 1920, height: 1080 }] },
        field: 'layout.monitors.0.x',
        says: /x/,
      },
      {
        layout: { monitors: [{ x: 0.5, y: 0, width: 1920, height: 1080 }] },
        field: 'layout.monitors.0.x',
        says: /integer/,
      },
      {
        layout: { monitors: [{ x: 32000, y: 0, width: 1920, height: 1080 }] },
        field: 'layout.monitors.0.width',
        says: /past the largest desktop \(32767 pixels\)/,
      },
      {
        layout: {
          monitors: [
            { x: 0, y: 0, width: 200, height: 100, screen: { width: 3840, height: 2160 } },
          ],
        },
        field: 'layout.monitors.0.width',
        says: /scale 19\.2.*make it wider/,
      },
      { layout: { monitors: [] }, field: 'layout.monitors', says: /at least 1/ },
      {
        layout: { monitors: [{ x: 0, y: 0, width: 10, height: 10, colour: 'red' }] },
        field: 'layout.monitors.0',
        says: /colour: is not a known field/,
      },
      {
        layout: { monitors: [{ x: 0, y: 0, width: 10, height: 10, label: 'a\u0000b' }] },
        field: 'layout.monitors.0.label',
        says: /control characters/,
      },
    ];
    for (const { layout, field, says } of cases) {
      const error = await refusal(await put(b.session, layout));
      expect(error.field, JSON.stringify(layout)).toBe(field);
      expect(error.error).toMatch(says);
    }
    expect((await read(b.session)).layout).toEqual(TWO_SCREENS);
    expect(b.saved).toHaveLength(1);
  });

  it('keeps each person to their own layout', async () => {
    const b = await bridge();
    const bob = await addPerson(b.session, 'bob');
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    expect(await read(bob.session)).toMatchObject({ layout: null, updated_at: null });
    const bobs = { monitors: [{ x: 0, y: 0, width: 640, height: 480 }], masks: [] };
    expect((await put(bob.session, bobs)).status).toBe(200);
    expect((await read(bob.session)).layout).toEqual(bobs);
    expect((await read(b.session)).layout).toEqual(TWO_SCREENS);
    expect(b.saved.map((s) => s.personId)).toEqual([b.admin.id, bob.person.id]);
  });

  it('refuses an API token: the AI can neither read nor move or remove a mask', async () => {
    const b = await bridge();
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    const asToken = (method: string, body?: unknown) =>
      fetch(new URL(API.layout, b.url), {
        method,
        headers: {
          origin: originOf(b.url),
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const unmasked = { monitors: TWO_SCREENS.monitors, masks: [] };
    const put401 = await asToken('PUT', { layout: unmasked });
    expect(put401.status).toBe(401);
    expect((await asToken('DELETE')).status).toBe(401);
    expect(((await put401.json()) as { error: string }).error).toMatch(/Sign in first/);
    const get401 = await asToken('GET');
    expect(get401.status).toBe(401);
    expect(JSON.stringify(await get401.json())).not.toContain('mail');
    expect((await read(b.session)).layout?.masks).toEqual(TWO_SCREENS.masks);
    expect(b.saved).toHaveLength(1);
  });

  it('refuses a change without the CSRF token', async () => {
    const b = await bridge();
    const res = await b.session.request(API.layout, {
      method: 'PUT',
      body: { layout: TWO_SCREENS },
      headers: { 'X-CSRF-Token': 'not-the-token' },
    });
    expect(res.status).toBe(403);
    expect((await read(b.session)).layout).toBeNull();
  });

  it('answers without the desktop size when its source fails', async () => {
    const b = await bridge({
      desktopSize: () => Promise.reject(new Error('the tunnel is gone')),
    });
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    expect(await read(b.session)).toMatchObject({ layout: TWO_SCREENS, desktop: null });
  });

  it('saves even when applying the layout fails (the failure is logged)', async () => {
    const b = await bridge({
      layoutSaved: () => Promise.reject(new Error('no viewer answered')),
    });
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    const thrower = await bridge({
      layoutSaved: () => {
        throw new Error('desktop cannot resize');
      },
    });
    expect((await put(thrower.session, TWO_SCREENS)).status).toBe(200);
    expect((await read(thrower.session)).layout).toEqual(TWO_SCREENS);
  });
});

describe('a desktop’s own layout (?desktop=)', () => {
  it('wins over its owner’s for that desktop alone; anyone who sees it reads it, only its owner or an admin changes it', async () => {
    const saved: Array<{ personId: string; desktopId: string | undefined }> = [];
    const b = await startTestBridge({
      layoutSaved: (personId, _layout, desktopId) => {
        saved.push({ personId, desktopId });
      },
    });
    closers.push(() => b.close());
    const desktopId = (await b.desktopControl.directory.cliDesktopId()) ?? '';
    const member = await addPerson(b.session, 'mona', { grant: 'control' });
    const other = await addPerson(b.session, 'otto');
    const path = `${API.layout}?desktop=${desktopId}`;

    // The owner's own layout is the desktop's until it gets one of its own.
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    expect((await (await member.session.request(path)).json()) as LayoutAnswer).toMatchObject({
      layout: TWO_SCREENS,
    });
    const ONE: MonitorLayout = {
      monitors: [{ x: 0, y: 0, width: 1600, height: 900, label: 'only' }],
      masks: [{ x: 10, y: 10, width: 20, height: 20, label: 'pin' }],
    };
    const own = await b.session.request(path, { method: 'PUT', body: { layout: ONE } });
    expect(own.status).toBe(200);
    expect(saved.at(-1)).toEqual({ personId: b.admin.id, desktopId });
    expect(((await (await member.session.request(path)).json()) as LayoutAnswer).layout).toEqual(
      ONE,
    );
    // The owner's own layout is unchanged; the desktop's plane shows the desktop's layout.
    expect((await read(b.session)).layout).toEqual(TWO_SCREENS);
    await new Promise((resolve) => setTimeout(resolve, 50));

    // A control grant reads it but does not change it; someone without access sees nothing.
    const refused = await member.session.request(path, { method: 'PUT', body: { layout: ONE } });
    expect(refused.status).toBe(403);
    expect((await other.session.request(path)).status).toBe(404);
    const admin2 = await addPerson(b.session, 'ada2', { role: 'admin' });
    const byAdmin = await admin2.session.request(path, { method: 'DELETE' });
    expect(byAdmin.status).toBe(200);
    // Without its own, the desktop falls back to its owner's.
    expect(((await (await member.session.request(path)).json()) as LayoutAnswer).layout).toEqual(
      TWO_SCREENS,
    );
  });

  it('reaches the desktop’s windows: its plane shows the desktop’s own layout, then its owner’s again', async () => {
    const b = await startTestBridge();
    closers.push(() => b.close());
    const desktopId = (await b.desktopControl.directory.cliDesktopId()) ?? '';
    const path = `${API.layout}?desktop=${desktopId}`;
    const ONE: MonitorLayout = {
      monitors: [{ x: 0, y: 0, width: 1600, height: 900, label: 'only' }],
      masks: [{ x: 10, y: 10, width: 20, height: 20, label: 'pin' }],
    };
    expect((await put(b.session, TWO_SCREENS)).status).toBe(200);
    expect((await b.session.request(path, { method: 'PUT', body: { layout: ONE } })).status).toBe(
      200,
    );
    await expect.poll(() => b.adminPlane.hub.currentLayout).toEqual(ONE);
    expect((await b.session.request(path, { method: 'DELETE' })).status).toBe(200);
    await expect.poll(() => b.adminPlane.hub.currentLayout).toEqual(TWO_SCREENS);
  });
});
