// A stalled desktop link behind Apache guacd, with real parts: guacd 1.6 and Xvnc, guacd and
// xrdp, with a proxy the test controls between guacd and the desktop (testing/stallProxy.ts).
// guacd itself never reports such a stall (linkProbe.ts); the bridge's link watch must notice
// it: the tunnel is closed with 514 UPSTREAM_TIMEOUT within the stated deadline, /readyz says so,
// and once the proxy forwards again a tunnel opened as the browser reopens one shows the desktop.
// Skipped with the reason where guacd or xrdp is missing; failed there under OC_REQUIRE_GUACD=1.
import { GuacStatus } from '@overlay-companion/guac';
import { afterAll, describe, expect, it } from 'vitest';
import { readyz, startGuacdStallStack, type GuacdStallStack } from '../testing/guacdStallStack.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { statusFromClose } from './closeStatus.js';
import { LINK_STALL_DEADLINE_MS } from './linkWatch.js';

const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

/** Opens a tunnel and waits for the desktop's first picture (RDP logs in first: seconds). */
async function showing(stack: GuacdStallStack): Promise<TunnelClient> {
  const client = await TunnelClient.open(stack.bridge.url, await stack.fixture.ticket('tunnel'));
  cleanups.push(() => client.close());
  const shown = await client.waitFor((i) => i.opcode === 'img' || i.opcode === 'error', {
    timeoutMs: 60_000,
    what: "the desktop's first picture",
  });
  if (shown.opcode === 'error') throw new Error(`The tunnel failed: ${shown.args.join(' / ')}`);
  return client;
}

describe.each(['vnc', 'rdp'] as const)(
  'a stalled link between guacd and the %s desktop',
  (kind) => {
    it(
      'is closed with 514 within the deadline, makes /readyz 503, and works again once it resumes',
      { timeout: 150_000 },
      async (ctx) => {
        const stack = await startGuacdStallStack(kind, cleanups);
        if (typeof stack === 'string') {
          ctx.skip(stack);
          return;
        }
        const client = await showing(stack);
        // A still desktop is not a stalled one: the probes are answered and the tunnel stays.
        await new Promise((resolve) => setTimeout(resolve, LINK_STALL_DEADLINE_MS));
        expect(client.isOpen).toBe(true);
        expect((await readyz(stack.bridge)).status).toBe(200);

        // guacd acknowledges no input: a receipt says `link` once the desktop showed life after
        // the input (a frame, or the bridge's probe of its server).
        client.sendRaw('5.mouse,2.40,2.30,1.0;10.oc-receipt,1.1;');
        const receipt = await client.waitFor(
          (i) => i.opcode === 'oc-receipt' && i.args[0] === '1',
          { what: 'the receipt' },
        );
        expect(receipt.args[1]).toBe('link');

        // The stall starts at once, while frames the desktop drew for the first move may still be
        // on their way through guacd: those must not vouch for the second input (linkWatch.ts
        // VOUCH_DRAWING_AFTER_MS).
        const stalledAt = Date.now();
        stack.proxy.pause();
        // Input into the stalled link is never confirmed: its receipt says `lost` as it ends.
        client.sendRaw('5.mouse,2.50,2.30,1.0;10.oc-receipt,1.2;');
        const closed = await Promise.race([
          client.closed,
          new Promise<never>((_resolve, reject) =>
            setTimeout(
              () => reject(new Error('the tunnel stayed open on a stalled link')),
              LINK_STALL_DEADLINE_MS + 5_000,
            ),
          ),
        ]);
        const noticedMs = Date.now() - stalledAt;
        console.log(`guacd ${kind}: stall noticed after ${noticedMs} ms`);
        expect(noticedMs).toBeLessThan(LINK_STALL_DEADLINE_MS + 1_000);
        expect(statusFromClose(closed.code, closed.reason)).toBe(GuacStatus.UPSTREAM_TIMEOUT);
        const error = client.instructions.find((i) => i.opcode === 'error');
        expect(error?.args[1]).toBe(String(GuacStatus.UPSTREAM_TIMEOUT));
        expect(error?.args[0]).toMatch(/stopped answering/);
        const lost = client.instructions.filter(
          (i) => i.opcode === 'oc-receipt' && i.args[0] === '2',
        );
        expect(lost.map((i) => i.args[1])).toEqual(['lost']);
        await eventually(
          '/readyz to turn 503',
          async () => (await readyz(stack.bridge)).status === 503,
          3_000,
        );
        expect((await readyz(stack.bridge)).body).toMatch(/desktop stopped answering/);

        // Reconnect as the viewer does after an error: again, a second later, until it shows
        // (guacd may first fail to reach a VNC server still busy with the stalled connection).
        stack.proxy.resume();
        const resumedAt = Date.now();
        const failures: string[] = [];
        await eventually(
          'a reopened tunnel to show the desktop',
          () =>
            showing(stack).then(
              () => true,
              async (err: unknown) => {
                failures.push(String(err));
                await new Promise((resolve) => setTimeout(resolve, 1_000));
                return false;
              },
            ),
          20_000,
        );
        if (failures.length > 0)
          console.log(`guacd ${kind}: reopening failed first: ${failures.join('; ')}`);
        console.log(
          `guacd ${kind}: usable again ${Date.now() - resumedAt} ms after the link resumed`,
        );
        await eventually(
          '/readyz to be 200',
          async () => (await readyz(stack.bridge)).status === 200,
          3_000,
        );
      },
    );
  },
);
