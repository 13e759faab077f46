// File transfer over HTTP for a signed-in browser (the /api perimeter: cookie session, CSRF on the
// upload and the choice, Host/Origin; the AI's bearer token is no sign-in here, and the AI has no
// file tools): the desktop's transfer folder listed, a file uploaded into it (PUT of raw bytes,
// streamed to disk, at most MAX_TRANSFER_BYTES, refused from its Content-Length before a byte is
// read), a file downloaded from it (streamed), and the person in charge's choice whether others
// may transfer (transferPermission.ts). Every transfer that started — finished, cancelled or
// failed — is one audit entry with the file's name, size, SHA-256, the direction, who and the
// desktop.
import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  binaryBytesText,
  MAX_TRANSFER_BYTES,
  TransferPolicyRequest,
  type TransferDone,
  type TransferListing,
} from '@overlay-companion/protocol';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { auditDesktopChange } from '../audit/desktopChange.js';
import type { Access } from '../auth/access.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { DesktopRecord, PersonRecord } from '../store/types.js';
import type { TransferTarget } from './transferTargets.js';
import { auditTransfer, type TransferAudit } from './transferAudit.js';
import { TransferError } from './transferFolder.js';
import { idleGuard, TRANSFER_IDLE_MS } from './transferIdle.js';
import { TransferPolicies } from './transferPermission.js';

export interface FileRoutesDeps {
  access: Access;
  /** The desktop's transfer folder, or a TransferError saying why there is none now. */
  folderOf(desktop: DesktopRecord): Promise<TransferTarget>;
  policies: TransferPolicies;
  logger: Logger;
  /** Largest file (default MAX_TRANSFER_BYTES; tests lower it). */
  maxBytes?: number | undefined;
  /** A transfer with no byte moving for this long ends (default TRANSFER_IDLE_MS). */
  idleMs?: number | undefined;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function mountFileRoutes(app: Hono<BridgeEnv>, deps: FileRoutesDeps): void {
  const { access, policies } = deps;
  const store = access.store;
  const maxBytes = deps.maxBytes ?? MAX_TRANSFER_BYTES;
  const idleMs = deps.idleMs ?? TRANSFER_IDLE_MS;

  const nameOf = async (personId: string): Promise<string> =>
    (await store.people.byId(personId))?.displayName ?? 'The person in charge';

  /** The person, the desktop and whether they may transfer, or the refusal to answer with. */
  const load = async (
    c: Context<BridgeEnv>,
    needTransfer: boolean,
  ): Promise<
    | {
        ok: true;
        person: PersonRecord;
        desktop: DesktopRecord;
        mayTransfer: boolean;
        inCharge: boolean;
        whyNot?: string;
      }
    | { ok: false; response: Response }
  > => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return { ok: false, response: apiError(c, 401, 'Sign in first.') };
    const id = c.req.param('id') ?? '';
    const desktop = ID.test(id) ? await store.desktops.byId(id) : undefined;
    if (desktop === undefined)
      return {
        ok: false,
        response: apiError(c, 404, 'No such desktop of yours; reload the list.'),
      };
    const verdict = await policies.verdict(
      person,
      desktop,
      await store.desktops.grants(desktop.id),
      await nameOf(TransferPolicies.inChargeOf(desktop)),
    );
    if (!verdict.may && (needTransfer || verdict.status === 404))
      return { ok: false, response: apiError(c, verdict.status, verdict.why) };
    return verdict.may
      ? { ok: true, person, desktop, mayTransfer: true, inCharge: verdict.inCharge }
      : { ok: true, person, desktop, mayTransfer: false, inCharge: false, whyNot: verdict.why };
  };

  const refusal = (c: Context<BridgeEnv>, err: unknown): Response => {
    if (err instanceof TransferError) return apiError(c, err.status, err.message);
    throw err;
  };

  const audit = (entry: Omit<TransferAudit, 'audit'>): void =>
    auditTransfer({ audit: access.audit, ...entry });

  app.get('/api/desktops/:id/files', async (c) => {
    const loaded = await load(c, false);
    if (!loaded.ok) return loaded.response;
    const { desktop, mayTransfer, inCharge, whyNot } = loaded;
    try {
      const target = await deps.folderOf(desktop);
      const answer: TransferListing = {
        folder: target.shownAs,
        // Someone who may not transfer does not see the names either.
        files: mayTransfer ? await target.folder.list() : [],
        may_transfer: mayTransfer,
        ...(whyNot === undefined ? {} : { why_not: whyNot }),
        in_charge: inCharge,
        others_may_transfer: await policies.othersMay(desktop),
        max_bytes: maxBytes,
      };
      c.header('Cache-Control', 'no-store');
      return c.json(answer);
    } catch (err) {
      return refusal(c, err);
    }
  });

  app.put('/api/desktops/:id/files-policy', async (c) => {
    const loaded = await load(c, false);
    if (!loaded.ok) return loaded.response;
    const { person, desktop } = loaded;
    if (TransferPolicies.inChargeOf(desktop) !== person.id)
      return apiError(
        c,
        403,
        `Only the person in charge of "${desktop.name}" decides whether others may move files there.`,
      );
    const body = await parseJsonBody(c, TransferPolicyRequest);
    if (!body.ok) return body.response;
    // Written only while they are still in charge (a charge that moved meanwhile wins).
    if (!(await policies.set(desktop.id, person.id, body.value.others_may_transfer)))
      return apiError(
        c,
        409,
        `You are no longer in charge of "${desktop.name}"; reload it to see who is.`,
      );
    auditDesktopChange(
      access.audit,
      person,
      'desktop_changed',
      desktop,
      body.value.others_may_transfer
        ? 'others with access may transfer files'
        : 'only the person in charge may transfer files',
      { tapped: true },
    );
    return c.json({ others_may_transfer: body.value.others_may_transfer });
  });

  app.put('/api/desktops/:id/files/:name', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/octet-stream')
      return apiError(
        c,
        415,
        'Send the file\'s bytes as the body, with "Content-Type: application/octet-stream".',
      );
    const length = c.req.header('content-length');
    if (length === undefined || !/^\d+$/.test(length))
      return apiError(c, 411, 'Send the file with a Content-Length (its size in bytes).');
    const size = Number(length);
    if (size > maxBytes)
      return apiError(
        c,
        413,
        `The file is ${binaryBytesText(size)}; files of at most ${binaryBytesText(maxBytes)} can be sent. Split it or compress it first.`,
      );
    const loaded = await load(c, true);
    if (!loaded.ok) return loaded.response;
    const { person, desktop } = loaded;
    const name = c.req.param('name');
    const body = c.req.raw.body;
    const started = Date.now();
    try {
      const target = await deps.folderOf(desktop);
      const source =
        body === null
          ? Readable.from([])
          : // The e2e's typecheck compiles this file with the DOM's ReadableStream type, which
            // Node's does not accept; the bridge's own project needs no assertion.
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
            Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>);
      // No total time limit; a browser that stops sending is ended (transferIdle.ts).
      const guarded = pipeline(source, idleGuard(idleMs), () => undefined);
      const done = await target.folder.write(name, size, guarded, c.req.raw.signal);
      audit({
        person,
        desktop,
        direction: 'upload',
        name,
        size,
        sha256: done.sha256,
        outcome: 'ok',
        durationMs: Date.now() - started,
      });
      const answer: TransferDone = done;
      return c.json(answer, 201);
    } catch (err) {
      const cancelled = c.req.raw.signal.aborted;
      audit({
        person,
        desktop,
        direction: 'upload',
        name,
        size,
        sha256: null,
        outcome: cancelled
          ? 'cancelled'
          : `failed: ${err instanceof Error ? err.message : String(err)}`,
        durationMs: Date.now() - started,
      });
      if (cancelled) return apiError(c, 400, 'The upload was cancelled; nothing was kept.');
      return refusal(c, err);
    }
  });

  app.get('/api/desktops/:id/files/:name', async (c) => {
    const loaded = await load(c, true);
    if (!loaded.ok) return loaded.response;
    const { person, desktop } = loaded;
    const name = c.req.param('name');
    const started = Date.now();
    let opened: { size: number; stream: Readable };
    try {
      opened = await (await deps.folderOf(desktop)).folder.read(name);
    } catch (err) {
      return refusal(c, err);
    }
    if (opened.size > maxBytes) {
      opened.stream.destroy();
      return apiError(
        c,
        413,
        `"${name}" is ${binaryBytesText(opened.size)}; files of at most ${binaryBytesText(maxBytes)} can be fetched. Split or compress it on the desktop first.`,
      );
    }
    const hash = createHash('sha256');
    let sent = 0;
    let ended = false;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        // A file that grew while it is read is cut at the size announced.
        const part = chunk.subarray(0, Math.max(0, opened.size - sent));
        sent += part.length;
        hash.update(part);
        next(null, part);
      },
      flush(next) {
        ended = true;
        next();
      },
    });
    const size = opened.size;
    // Audited once the transfer is over: every byte sent, or the browser went away first.
    count.once('close', () => {
      const complete = ended && sent === size;
      audit({
        person,
        desktop,
        direction: 'download',
        name,
        size,
        sha256: complete ? hash.digest('hex') : null,
        outcome: complete ? 'ok' : `cancelled after ${sent} of ${size} bytes`,
        durationMs: Date.now() - started,
      });
    });
    // No total time limit; a browser that stops reading is ended (transferIdle.ts): its
    // connection is closed, which ends the answer's stream without an error (an error there is
    // printed with its stack by the HTTP server); the log says what happened.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    const guard = idleGuard(idleMs, () => {
      deps.logger.warn(
        { desktopId: desktop.id, sent, size, idleSeconds: idleMs / 1000 },
        'a download was ended: the browser read nothing for the idle limit',
      );
      if (outgoing !== undefined) outgoing.destroy();
      else guard.destroy(new TransferError(408, 'The download was idle too long.'));
    });
    pipeline(opened.stream, guard, count, () => undefined);
    return new Response(Readable.toWeb(count) as ReadableStream, {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(size),
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
        'cache-control': 'no-store',
      },
    });
  });
}
