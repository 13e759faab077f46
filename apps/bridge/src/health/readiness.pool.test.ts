// /readyz of a bridge with a gateway pool (--gateways), with real parts: one Xvnc desktop, two of
// our gateways started with the pool secret and a real Apache guacd. While some members are out
// the bridge is ready with a note naming them by their place in --gateways (never host or port)
// and why — the desktop still opens through a member that is up (checked from X); once none is
// up it is not ready (503) and says which are out and why; a member back is back in the words.
import { startGateway } from '@overlay-companion/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type RunningBridge } from '../bridge.js';
import { silentLogger } from '../logger.js';
import { startTestGuacd, skipOrFail, type TestGuacd } from '../testing/guacd.js';
import {
  openShowing,
  pointerLands,
  startPoolParts,
  type PoolParts,
} from '../testing/gatewayPoolParts.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { OUT_BECAUSE } from '../tunnel/gatewayPool.js';
import { DEGRADED, NOT_READY } from './readiness.js';
import { readyz, readyzBecomes } from './testing/readyz.js';

const guacd = await startTestGuacd();
const noGuacd = 'skip' in guacd ? skipOrFail('guacd', guacd.skip) : undefined;

describe.skipIf(noGuacd !== undefined)('/readyz with a gateway pool', () => {
  let parts: PoolParts;
  let fixture: TestAccess;
  let bridge: RunningBridge;
  const real = guacd as TestGuacd;

  beforeAll(async () => {
    parts = await startPoolParts();
    fixture = await startTestAccess();
    const config = parts.config();
    const pool = config.tunnel!.gatewayPool!;
    bridge = await startBridge(
      {
        ...config,
        tunnel: {
          gatewayPool: {
            ...pool,
            members: [...pool.members, { kind: 'guacd', host: real.host, port: real.port }],
          },
        },
      },
      { access: fixture.access, logger: fixture.logger },
    );
  }, 60_000);
  afterAll(async () => {
    await bridge?.close();
    await fixture?.close();
    await parts?.stop();
    await real.stop();
  }, 30_000);

  /** No host or port of any member is in the words. */
  const anonymous = (text: string): void => {
    expect(text).not.toContain('127.0.0.1');
    for (const port of [...parts.gateways.map((g) => g.port), real.port])
      expect(text).not.toContain(String(port));
  };

  it('says which members are out and why; not ready once none is up', async () => {
    expect(await readyz(bridge)).toEqual({ status: 200, text: 'ready' });

    // guacd gone: ready, degraded, and RDP cannot open.
    await real.stop();
    const noGuacd = await readyzBecomes(bridge, (a) => a.text.startsWith('ready (degraded'));
    expect(noGuacd.status).toBe(200);
    expect(noGuacd.text).toMatch(
      new RegExp(
        `^ready \\(degraded: 1 of 3 ${DEGRADED.gateways}: gateway 3 of 3 \\(guacd\\) out for \\d+ s: ${OUT_BECAUSE.probe}; ${DEGRADED.rdp}\\)$`,
      ),
    );
    anonymous(noGuacd.text);

    // The first gateway gone too: still ready, and the desktop opens through the second.
    const [first, second] = parts.gateways as [
      (typeof parts.gateways)[0],
      (typeof parts.gateways)[0],
    ];
    await first.close();
    const one = await readyzBecomes(bridge, (a) => a.text.includes('2 of 3'));
    expect(one.status).toBe(200);
    expect(one.text).toContain('gateway 1 of 3 (overlay-companion gateway) out for');
    expect(one.text).not.toContain('gateway 2 of 3');
    const window = await openShowing(bridge.url, await fixture.ticket('tunnel'));
    await pointerLands(window, parts.desktop.env, 131, 77);
    expect(second.connectionIds()).toHaveLength(1);
    await window.close();

    // None up: not ready, every member named with why.
    await second.close();
    const none = await readyzBecomes(bridge, 503);
    expect(none.text).toMatch(
      new RegExp(
        `^not ready: ${escape(NOT_READY.gateways)}: gateway 1 of 3 \\(overlay-companion gateway\\) out for \\d+ s: [a-z ]+, gateway 2 of 3 \\(overlay-companion gateway\\) out for \\d+ s: [a-z ]+, gateway 3 of 3 \\(guacd\\) out for \\d+ s: ${OUT_BECAUSE.probe}$`,
      ),
    );
    anonymous(none.text);

    // The second gateway back on its port: ready again (degraded), the desktop opens there.
    parts.gateways[1] = await startGateway({
      port: second.port,
      poolSecret: parts.secret,
      logger: silentLogger(),
    });
    const back = await readyzBecomes(bridge, 200);
    expect(back.text).toContain('2 of 3');
    expect(back.text).not.toContain('gateway 2 of 3');
    const again = await openShowing(bridge.url, await fixture.ticket('tunnel'));
    await pointerLands(again, parts.desktop.env, 61, 42);
    await again.close();
  }, 90_000);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
