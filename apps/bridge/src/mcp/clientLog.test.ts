// MCP logging against a real bridge with the SDK's real client: the server declares `logging`,
// logging/setLevel answers {} per session, and the client is told about its own calls (a denied
// call as a warning, an unknown tool as a notice, every call at debug) at or above the level it
// chose — and never about another session's calls.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_LOGGER_NAME } from './clientLog.js';
import { callTool } from './testing/calls.js';
import {
  OTHER_TOKEN,
  connectClient,
  startTestBridge,
  type TestBridge,
} from './testing/fixtures.js';

type Message = LoggingMessageNotification['params'];

function listening(client: Client): Message[] {
  const messages: Message[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    messages.push(notification.params);
  });
  return messages;
}

/** Waits until `predicate` holds for the messages so far (notifications arrive on the GET stream). */
async function until(messages: Message[], predicate: (all: Message[]) => boolean): Promise<void> {
  const started = Date.now();
  while (!predicate(messages)) {
    if (Date.now() - started > 5000) {
      throw new Error(`log notifications never matched; got ${JSON.stringify(messages)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const about = (tool: string) => (m: Message) => (m.data as { tool?: string }).tool === tool;

describe('MCP logging', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('declares logging and tells the client about its own denied and unknown calls', async () => {
    const { client } = await connectClient(bridge);
    const other = (await connectClient(bridge, { token: OTHER_TOKEN })).client;
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      const messages = listening(client);
      const othersMessages = listening(other);
      // The clipboard-read toggle starts off: the policy denies the call.
      const denied = await callTool(client, 'get_clipboard');
      expect(denied.isError).toBe(true);
      await until(messages, (all) => all.some(about('get_clipboard')));
      const warning = messages.find(about('get_clipboard'));
      expect(warning).toMatchObject({
        level: 'warning',
        logger: CLIENT_LOGGER_NAME,
        data: { tool: 'get_clipboard', outcome: 'permission_denied' },
      });
      expect((warning?.data as { detail: string }).detail).toMatch(/^permission_denied: /);

      await callTool(client, 'no_such_tool');
      await until(messages, (all) => all.some(about('no_such_tool')));
      expect(messages.find(about('no_such_tool'))).toMatchObject({
        level: 'notice',
        data: { outcome: 'invalid_parameters' },
      });
      // At the default level (info) a successful call is not worth a message.
      const ok = await callTool(client, 'subscribe_events', { events: ['mouse_click'] });
      expect(ok.isError).not.toBe(true);
      // The other session hears nothing of this session's calls.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(messages.some(about('subscribe_events'))).toBe(false);
      expect(othersMessages).toEqual([]);
    } finally {
      await client.close();
      await other.close();
    }
  });

  it('filters by the level each session sets with logging/setLevel', async () => {
    const { client } = await connectClient(bridge);
    const second = (await connectClient(bridge)).client;
    try {
      const messages = listening(client);
      const secondMessages = listening(second);
      expect(await client.setLoggingLevel('error')).toEqual({});
      expect(await second.setLoggingLevel('debug')).toEqual({});
      await callTool(client, 'get_clipboard');
      await callTool(second, 'subscribe_events', { events: ['mouse_click'] });
      await until(secondMessages, (all) => all.some(about('subscribe_events')));
      expect(secondMessages.find(about('subscribe_events'))).toMatchObject({
        level: 'debug',
        data: { outcome: 'ok' },
      });
      // A warning is below "error": the first session was told nothing.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(messages).toEqual([]);

      expect(await client.setLoggingLevel('warning')).toEqual({});
      await callTool(client, 'get_clipboard');
      await until(messages, (all) => all.some(about('get_clipboard')));
    } finally {
      await client.close();
      await second.close();
    }
  });
});
