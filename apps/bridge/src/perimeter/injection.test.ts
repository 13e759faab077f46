// SQL injection strings in every form field of every API, against a real bridge on a real
// SQLite file: sign-in, first-run setup, adding and changing people, changing one's password,
// token names, layout names and labels, audit filters, ticket, permission and settings bodies,
// and the ids in paths. Each answer must be a clear 4xx (the field refused, with an error that
// says why) or a success that stored the text verbatim; after each attack every table and every
// row is still there and the admin's password and token still work. Nothing may answer 5xx (a
// query that broke is a query that was built from the input).
import {
  API,
  type ApiError,
  type AuditPage,
  type PersonView,
  type TokenView,
} from '@overlay-companion/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  TOKEN,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { signIn } from '../testing/browserSession.js';
import { dumpDatabase, rowCounts, tableNames } from './testing/database.js';
import { browserHeaders, initializeMcp, rawRequest } from './testing/http.js';
import { addPerson } from './testing/people.js';

const PAYLOADS = [
  "'; DROP TABLE people; --",
  '" OR 1=1 --',
  "admin'--",
  "' OR '1'='1",
  '1; DELETE FROM api_tokens; --',
  "x' UNION SELECT password_hash, id FROM people --",
  "%' OR 1=1 --",
  "\\'; DROP TABLE web_sessions; --",
  "'); DROP TABLE audit_log; --",
  "admin' /*",
] as const;

let bridge: TestBridge;
let tablesAtStart: string[];
let rowsBefore: Record<string, number>;

beforeAll(async () => {
  // Many failed sign-ins on purpose here: the brute-force ban is signin.test.ts's business.
  bridge = await startTestBridge({ access: { throttle: { maxFailures: 100_000, banMs: 1000 } } });
  tablesAtStart = tableNames(bridge.dataDir);
});

beforeEach(async () => {
  await bridge.access.audit.flush();
  rowsBefore = rowCounts(bridge.dataDir);
});

// After every attack: every table is still there, no row of any table is gone, and the admin's
// password and token still work.
afterEach(async () => {
  await bridge.access.audit.flush();
  expect(tableNames(bridge.dataDir)).toEqual(tablesAtStart);
  const rowsAfter = rowCounts(bridge.dataDir);
  for (const [table, count] of Object.entries(rowsBefore)) {
    expect(rowsAfter[table] ?? 0, `rows of ${table}`).toBeGreaterThanOrEqual(count);
  }
  expect((await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD)).me.person.role).toBe('admin');
  const mcp = await initializeMcp(bridge.url, TOKEN);
  expect(mcp.status).toBe(200);
});

afterAll(async () => {
  await bridge.close();
});

/** A 4xx that says what is wrong, never a 5xx. */
async function expectClearRefusal(
  answer: Response,
  what: string,
  statuses: number[],
): Promise<ApiError> {
  const text = await answer.text();
  expect(statuses, `${what}: ${answer.status} ${text}`).toContain(answer.status);
  const error = JSON.parse(text) as ApiError;
  expect(error.error.length, what).toBeGreaterThan(10);
  return error;
}

const signInRaw = (username: string, password: string) =>
  rawRequest(bridge.url, API.signIn, {
    method: 'POST',
    headers: browserHeaders(bridge.url, undefined),
    body: JSON.stringify({ username, password }),
  });

describe('SQL injection strings in every form field', () => {
  it('sign-in (username, password): refused as a wrong sign-in, nobody signed in', async () => {
    for (const payload of PAYLOADS) {
      for (const [username, password] of [
        [payload, payload],
        [payload, ADMIN_PASSWORD],
        [ADMIN_USERNAME, payload],
        [`${ADMIN_USERNAME}${payload}`, 'x'],
      ] as const) {
        const answer = await signInRaw(username, password);
        expect(answer.status, `${username} / ${password}: ${answer.body}`).toBe(401);
        expect(answer.headers['set-cookie']).toBeUndefined();
      }
    }
  });

  it('adding a person (username, display name, password): a clear 400 or stored verbatim', async () => {
    for (const payload of PAYLOADS) {
      const answer = await bridge.session.request(API.people, {
        body: { username: payload, password: 'password-0123456789' },
      });
      const error = await expectClearRefusal(answer, `username ${payload}`, [400]);
      expect(error.field).toBe('username');
    }
    for (const [index, payload] of PAYLOADS.entries()) {
      // The payload as display name and as password of the same person.
      const added = await addPerson(bridge.session, `inject-${index}`, {
        displayName: payload,
        password: payload.padEnd(10, '!'),
      });
      expect(added.person.display_name).toBe(payload);
      const stored = dumpDatabase(bridge.dataDir).people?.find((p) => p.id === added.person.id);
      expect(stored?.display_name).toBe(payload);
      expect(added.session.me.person.display_name).toBe(payload);
    }
  });

  it("changing one's password (current, new): a clear 403, or the new one works verbatim", async () => {
    const person = await addPerson(bridge.session, 'changes-password');
    for (const payload of PAYLOADS) {
      const answer = await person.session.request(API.myPassword, {
        method: 'PUT',
        body: { current_password: payload, new_password: 'another-password-0123' },
      });
      const error = await expectClearRefusal(answer, `current_password ${payload}`, [403]);
      expect(error.field).toBe('current_password');
    }
    let current = person.password;
    for (const payload of PAYLOADS) {
      const next = payload.padEnd(10, '!');
      const answer = await person.session.request(API.myPassword, {
        method: 'PUT',
        body: { current_password: current, new_password: next },
      });
      expect(answer.status, `new_password ${payload}`).toBe(200);
      current = next;
    }
    expect((await signIn(bridge.url, 'changes-password', current)).me.person.username).toBe(
      'changes-password',
    );
  });

  it('first-run setup (code, username, display name, password): a clear 4xx, or stored verbatim', async () => {
    // An admin-less bridge of its own, as on first run.
    const fresh = await startTestBridge();
    try {
      await fresh.access.store.people.update(fresh.admin.id, { disabled: true });
      const code = fresh.access.setup.issue();
      const setup = (body: Record<string, string>) =>
        rawRequest(fresh.url, API.setup, {
          method: 'POST',
          headers: browserHeaders(fresh.url, undefined),
          body: JSON.stringify({ code, username: 'root', password: 'root-password-0123', ...body }),
        });
      for (const payload of PAYLOADS) {
        const wrongCode = await setup({ code: payload });
        expect(wrongCode.status, `code ${payload}`).toBe(403);
        const badName = await setup({ username: payload });
        expect(badName.status, `username ${payload}`).toBe(400);
        expect((JSON.parse(badName.body) as ApiError).field).toBe('username');
      }
      const [displayName, password] = [PAYLOADS[0], PAYLOADS[3].padEnd(10, '!')];
      const done = await setup({ display_name: displayName, password });
      expect(done.status).toBe(200);
      const root = await signIn(fresh.url, 'root', password);
      expect(root.me.person.display_name).toBe(displayName);
      expect(tableNames(fresh.dataDir)).toEqual(tablesAtStart);
    } finally {
      await fresh.close();
    }
  });

  it('changing a person (display name, password, the id in the path): a clear 4xx or stored verbatim', async () => {
    const target = await addPerson(bridge.session, 'patched');
    for (const payload of PAYLOADS) {
      const answer = await bridge.session.request(`${API.people}/${target.person.id}`, {
        method: 'PATCH',
        body: { display_name: payload, password: payload.padEnd(10, '!') },
      });
      expect(answer.status, `display_name ${payload}`).toBe(200);
      expect(((await answer.json()) as PersonView).display_name).toBe(payload);
      await expectClearRefusal(
        await bridge.session.request(`${API.people}/${encodeURIComponent(payload)}`, {
          method: 'PATCH',
          body: { display_name: 'x' },
        }),
        `PATCH /api/people/${payload}`,
        [404],
      );
      await expectClearRefusal(
        await bridge.session.request(`${API.people}/${encodeURIComponent(payload)}`, {
          method: 'DELETE',
        }),
        `DELETE /api/people/${payload}`,
        [404],
      );
    }
    expect(
      (await signIn(bridge.url, 'patched', PAYLOADS.at(-1)?.padEnd(10, '!') ?? '')).me.person.id,
    ).toBe(target.person.id);
  });

  it('token names (and the id in the path): stored verbatim, or a clear 404', async () => {
    for (const payload of PAYLOADS) {
      const answer = await bridge.session.request(API.tokens, { body: { name: payload } });
      expect(answer.status, `token name ${payload}`).toBe(201);
      await expectClearRefusal(
        await bridge.session.request(`${API.tokens}/${encodeURIComponent(payload)}`, {
          method: 'DELETE',
        }),
        `DELETE /api/tokens/${payload}`,
        [404],
      );
    }
    const list = (await (await bridge.session.request(API.tokens)).json()) as {
      tokens: TokenView[];
    };
    for (const payload of PAYLOADS) expect(list.tokens.map((t) => t.name)).toContain(payload);
  });

  it('monitor and mask labels are stored and read back verbatim', async () => {
    const monitors = PAYLOADS.map((label, i) => ({
      x: i * 100,
      y: 0,
      width: 100,
      height: 100,
      label,
    }));
    const masks = PAYLOADS.map((label, i) => ({ x: i * 100, y: 10, width: 50, height: 50, label }));
    const saved = await bridge.session.request(API.layout, {
      method: 'PUT',
      body: { layout: { monitors, masks } },
    });
    expect(saved.status).toBe(200);
    const read = (await (await bridge.session.request(API.layout)).json()) as {
      layout: { monitors: Array<{ label?: string }>; masks: Array<{ label?: string }> };
    };
    expect(read.layout.monitors.map((m) => m.label)).toEqual(PAYLOADS);
    expect(read.layout.masks.map((m) => m.label)).toEqual(PAYLOADS);
  });

  it('audit filters: text filters match nothing, typed ones are a clear 400', async () => {
    await bridge.access.audit.flush();
    for (const payload of PAYLOADS) {
      const q = encodeURIComponent(payload);
      for (const field of ['person_id', 'tool', 'outcome']) {
        for (const path of [API.audit, API.auditExport]) {
          const answer = await bridge.session.request(`${path}?${field}=${q}`);
          expect(answer.status, `${path}?${field}=${payload}`).toBe(200);
          const text = await answer.text();
          const entries =
            path === API.audit
              ? (JSON.parse(text) as AuditPage).entries
              : text.split('\n').filter(Boolean);
          expect(entries, `${path}?${field}=${payload}`).toEqual([]);
        }
      }
      for (const field of ['kind', 'from', 'to', 'before', 'limit']) {
        await expectClearRefusal(
          await bridge.session.request(`${API.audit}?${field}=${q}`),
          `audit ${field}=${payload}`,
          [400],
        );
      }
      await expectClearRefusal(
        await bridge.session.request(`${API.audit}/${q}/screenshot`),
        `screenshot ${payload}`,
        [400, 404],
      );
    }
  });

  it('ticket and permission bodies: a clear 400', async () => {
    for (const payload of PAYLOADS) {
      await expectClearRefusal(
        await bridge.session.request(API.tickets, { body: { socket: payload } }),
        `socket ${payload}`,
        [400],
      );
      await expectClearRefusal(
        await bridge.session.request(API.myPermissions, {
          method: 'PUT',
          body: { [payload]: true },
        }),
        `permission ${payload}`,
        [400],
      );
      await expectClearRefusal(
        await bridge.session.request(API.settings, {
          method: 'PUT',
          body: { audit_retention_days: payload },
        }),
        `settings ${payload}`,
        [400],
      );
    }
  });
});
