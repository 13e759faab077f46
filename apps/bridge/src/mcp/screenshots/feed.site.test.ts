// Background captures across a site, when the capture is larger than the site's NATS server takes
// (max_payload, 1 MB on the test server): a real nats-server and PostgreSQL on loopback, two
// bridges in this process, the person's window (the scripted viewer) on bridge 1 and the AI's MCP
// SDK client on bridge 2 with set_screenshot_frequency. The too-large capture is not skipped in
// silence: the subscribed client is told screenshot://latest changed, and reading it fails with
// the reason and what to do instead; once captures fit again, reading it gives the capture.
// Without nats-server or PostgreSQL the suite is skipped with the reason, unless CI requires them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresRequired } from '../../store/testing/postgres.js';
import { natsRequired } from '../../site/testing/natsServer.js';
import { startSiteServers } from '../../site/testing/siteServers.js';
import {
  aiWithBackgroundCaptures,
  tooLargeForNats,
} from '../../site/testing/backgroundCaptures.js';
import { startSiteBridge, type SiteBridge } from '../../site/testing/siteBridges.js';
import { waitUntil } from '../../site/testing/waitUntil.js';
import { callTool } from '../testing/calls.js';
import { screenshotResult } from '../testing/fixtures.js';
import { ScriptedViewer } from '../testing/scriptedViewer.js';

const { nats, postgres, missing } = await startSiteServers();

test('nats-server and PostgreSQL run this suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired() || postgresRequired()) throw new Error(`site tests cannot run: ${missing}`);
  ctx.skip(missing);
});

describe.runIf(missing === undefined)('background captures larger than NATS takes', () => {
  const bridges: SiteBridge[] = [];

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    for (const name of ['one', 'two'])
      bridges.push(
        await startSiteBridge({
          name,
          databaseUrl,
          site: { servers: [nats.address], token: nats.token },
        }),
      );
  });
  afterAll(async () => {
    for (const bridge of bridges) await bridge.close();
  });

  test('fail with words for the AI, not in silence, and recover once captures fit', async () => {
    const [one, two] = bridges as [SiteBridge, SiteBridge];
    const window = await ScriptedViewer.connect(one);
    window.on('take_screenshot', { result: screenshotResult(tooLargeForNats()) });
    await waitUntil(async () => (await two.site!.remote.holder(two.desktopId)) !== undefined, 5000);
    const ai = await aiWithBackgroundCaptures(two);
    const { updates } = ai;
    try {
      // The client is told, and reading says why and what to do instead.
      await waitUntil(() => updates.includes('screenshot://latest'), 5000);
      expect(window.toolCalls('take_screenshot').length).toBeGreaterThan(0);
      const failed = ai.client.readResource({ uri: 'screenshot://latest' });
      await expect(failed).rejects.toThrow(/Background screenshots .* are failing: .*max_payload/);
      await expect(failed).rejects.toThrow(/call take_screenshot with a region or a scale/);
      // Told once, not at every failing tick.
      const calls = window.toolCalls('take_screenshot').length;
      await waitUntil(() => window.toolCalls('take_screenshot').length >= calls + 2, 5000);
      expect(updates.filter((u) => u === 'screenshot://latest')).toHaveLength(1);

      // Captures fit again: the next one is read.
      const pixels = Buffer.from('small enough').toString('base64');
      window.on('take_screenshot', { result: screenshotResult(pixels) });
      await waitUntil(() => updates.length >= 2, 5000);
      const read = await ai.client.readResource({ uri: 'screenshot://latest' });
      expect(read.contents[0]).toMatchObject({ mimeType: 'image/png', blob: pixels });
      await callTool(ai.client, 'set_screenshot_frequency', { mode: 'manual' });
    } finally {
      await ai.client.close();
      await window.close();
    }
  });
});
