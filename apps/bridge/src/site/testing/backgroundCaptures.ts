// Test support for screenshots across a site (site.test.ts, mcp/screenshots/feed.site.test.ts):
// the AI's MCP SDK client on a bridge, subscribed to screenshot://latest with background captures
// on (set_screenshot_frequency, periodic), the URIs it was told changed; and a capture larger than
// the test NATS server's max_payload (1 MB).
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { callTool } from '../../mcp/testing/calls.js';
import { connectClient, TINY_PNG_BASE64 } from '../../mcp/testing/fixtures.js';
import { TOKEN } from './siteBridges.js';

/** A PNG header and 1.2 MB of filler (base64): more than the test server's max_payload. */
export function tooLargeForNats(): string {
  return Buffer.concat([
    Buffer.from(TINY_PNG_BASE64, 'base64'),
    Buffer.alloc(1_200_000, 7),
  ]).toString('base64');
}

/** The AI on `bridge`, told of every change of screenshot://latest, captures every 250 ms. */
export async function aiWithBackgroundCaptures(bridge: { mcpUrl: string }) {
  const ai = await connectClient(bridge, { token: TOKEN });
  const updates: string[] = [];
  ai.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  await ai.client.subscribeResource({ uri: 'screenshot://latest' });
  const set = await callTool(ai.client, 'set_screenshot_frequency', {
    mode: 'periodic',
    interval_ms: 250,
  });
  expect(set.isError).toBeFalsy();
  return { ...ai, updates };
}
