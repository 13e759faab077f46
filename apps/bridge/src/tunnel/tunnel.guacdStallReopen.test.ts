// A tunnel opened into a stalled link to xrdp behind Apache guacd — what the viewer does as it
// reconnects while the link is still stalled — is not taken for the desktop answering. guacd 1.6
// greets every new user at once with a `sync` (which the first-paint gate keeps from the
// browser), a `cursor` and a `mouse` — measured here: 3 of 4 tunnels into a paused proxy got them
// within 1 s, and nothing else but `nop` — and the bridge counted them as life: /readyz went back
// to 200 a second after each reconnect with the desktop still silent (the e2e stalledLinkRdp's
// /readyz check passed or not by timing), and the link watch began probing a login that had never
// drawn. Real guacd and xrdp with the test's proxy paused (testing/stallProxy.ts); skipped where
// either is missing, failed there under OC_REQUIRE_GUACD=1. Fails with the greeting counted as
// the desktop's.
import { afterAll, expect, it } from 'vitest';
import { readyz, startGuacdStallStack } from '../testing/guacdStallStack.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { LINK_STALL_DEADLINE_MS } from './linkWatch.js';

const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

/** Tries to open tunnels into the stalled link until one has been greeted by guacd. */
const GREETING_TRIES = 4;
/** How long each waits for guacd's greeting (it came within ~1 s when it came). */
const GREETING_WAIT_MS = 5_000;
/** How long /readyz is watched after the greeting (it turned 200 within ~0.5 s of it). */
const WATCH_MS = 2_000;

it(
  "guacd's own greeting (sync, cursor, mouse) on a tunnel into a stalled link does not make /readyz 200",
  { timeout: 150_000 },
  async (ctx) => {
    const stack = await startGuacdStallStack('rdp', cleanups);
    if (typeof stack === 'string') {
      ctx.skip(stack);
      return;
    }
    const first = await TunnelClient.open(stack.bridge.url, await stack.fixture.ticket('tunnel'));
    cleanups.push(() => first.close());
    await first.waitFor((i) => i.opcode === 'img', { timeoutMs: 60_000, what: 'the desktop' });
    stack.proxy.pause();
    await first.closed;
    await eventually(
      '/readyz to turn 503',
      async () => (await readyz(stack.bridge)).status === 503,
      LINK_STALL_DEADLINE_MS,
    );

    let greeted = 0;
    for (let i = 0; i < GREETING_TRIES && greeted === 0; i++) {
      const client = await TunnelClient.open(
        stack.bridge.url,
        await stack.fixture.ticket('tunnel'),
      );
      cleanups.push(() => client.close());
      const greeting = await client
        .waitFor((m) => m.opcode === 'cursor' || m.opcode === 'mouse', {
          timeoutMs: GREETING_WAIT_MS,
          what: "guacd's greeting",
        })
        .then(
          () => true,
          () => false,
        );
      if (greeting) {
        greeted += 1;
        const watchUntil = Date.now() + WATCH_MS;
        while (Date.now() < watchUntil) {
          const { status, body } = await readyz(stack.bridge);
          expect(status, body).toBe(503);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const opcodes = client.instructions.map((m) => m.opcode);
      console.log(`tunnel ${i + 1} into the stalled link received: ${opcodes.join(' ')}`);
      // Nothing came from xrdp: nothing of a picture reached the browser.
      expect(opcodes.filter((o) => !['', 'ready', 'cursor', 'mouse', 'nop'].includes(o))).toEqual(
        [],
      );
      await client.close();
    }
    expect(greeted, 'guacd greeted none of the tunnels: nothing was tested').toBe(1);
  },
);
