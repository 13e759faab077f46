// A failed call's log: one line at warn with the kind, the tool and the message (a fault that
// fails every call must not write a stack trace per call), and the stack only at debug. A real
// bridge logs into memory; a SCRIPTED VIEWER (test ws client) answers with a system_error.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, type MemoryLog } from '../perimeter/testing/logs.js';
import { callTool, errorOf } from './testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from './testing/fixtures.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';

describe('a failed tool call in the log', () => {
  let log: MemoryLog;
  let bridge: TestBridge;
  let client: Client;
  let viewer: ScriptedViewer;

  beforeAll(async () => {
    log = memoryLogger();
    bridge = await startTestBridge({ logger: log.logger });
    ({ client } = await connectClient(bridge));
    viewer = await ScriptedViewer.connect(bridge);
  });
  afterAll(async () => {
    await viewer.close();
    await client.close();
    await bridge.close();
  });

  const lines = (): Array<Record<string, unknown>> =>
    log
      .text()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => typeof l.msg === 'string' && l.msg.startsWith('tool call failed'));

  it('is one warn line (kind, tool, message) without a stack; the stack is at debug', async () => {
    viewer.on('get_display_info', {
      error: { kind: 'system_error', message: 'No space left on device' },
    });
    const result = await callTool(client, 'get_display_info');
    expect(errorOf(result).kind).toBe('system_error');

    const warned = lines().filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      kind: 'system_error',
      tool: 'get_display_info',
      message: 'No space left on device',
    });
    const warnText = JSON.stringify(warned[0]);
    expect(warnText).not.toMatch(/stack|\n\s+at /);
    expect(warnText).not.toContain('    at ');

    const debugged = lines().filter((l) => l.level === 20);
    expect(debugged).toHaveLength(1);
    expect(String(debugged[0]?.stack)).toMatch(/\n\s+at /);
  });
});
