// The viewer handles exactly the tools whose definitions run in the viewer: one handler each,
// none for bridge tools. (The mapped type makes a missing handler a compile error; this checks
// the same at run time, so a cast somewhere cannot hide it.) Input tools ask their receipt behind
// their input and answer only once it came back.
import {
  BRIDGE_TOOL_NAMES,
  VIEWER_TOOL_NAMES,
  parseToolArgs,
  type ToolArgs,
} from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { viewerHandlers, type ToolEnv } from './dispatch.js';
import { FakeGuacClient } from './handlers/fakeGuacClient.js';

describe('viewer dispatch', () => {
  it('has a handler for every viewer tool and none for bridge tools', () => {
    expect(Object.keys(viewerHandlers).sort()).toEqual([...VIEWER_TOOL_NAMES].sort());
    for (const name of BRIDGE_TOOL_NAMES) expect(Object.hasOwn(viewerHandlers, name)).toBe(false);
    for (const handler of Object.values(viewerHandlers)) expect(handler).toBeTypeOf('function');
  });
});

describe('input receipts in dispatch', () => {
  /**
   * A FAKE tool environment around the recording FakeGuacClient: only what input tools read.
   * `delivered` records how much input had been sent when the receipt was asked, and answers
   * when the test says.
   */
  function args<N extends 'mouse_move' | 'click_at'>(name: N, raw: unknown): ToolArgs<N> {
    const parsed = parseToolArgs(name, raw);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value;
  }

  function inputEnv() {
    const client = new FakeGuacClient();
    const asked: number[] = [];
    let answer: ((error?: Error) => void) | undefined;
    const env = {
      client: () => client,
      desktop: () => ({ width: 1280, height: 800 }),
      monitors: () => [{ x: 0, y: 0, width: 1280, height: 800, primary: true }],
      sleep: () => Promise.resolve(),
      signal: new AbortController().signal,
      confirmed: false,
      delivered: () => {
        asked.push(client.sent.length);
        return new Promise<void>((resolve, reject) => {
          answer = (error) => (error === undefined ? resolve() : reject(error));
        });
      },
    } as unknown as ToolEnv;
    return { env, client, asked, answer: (error?: Error) => answer?.(error) };
  }

  it('asks the receipt for a move in the same task as the input, and answers only after it', async () => {
    const { env, client, asked, answer } = inputEnv();
    let settled = false;
    const result = viewerHandlers.mouse_move(
      args('mouse_move', { x: 10, y: 20 }),
      env,
    ) as Promise<unknown>;
    void result.then(() => (settled = true));
    // Synchronously: the move left and its receipt was asked right behind it.
    expect(client.sent).toEqual(['mouse,10,20,0']);
    expect(asked).toEqual([1]);
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    answer();
    await expect(result).resolves.toEqual({ success: true });
  });

  it('fails the move when its input did not reach the desktop', async () => {
    const { env, answer } = inputEnv();
    const result = viewerHandlers.mouse_move(args('mouse_move', { x: 1, y: 2 }), env);
    answer(new Error('lost on the way'));
    await expect(result).rejects.toThrow('lost on the way');
  });

  it('asks no receipt for a move refused before it left (off the desktop)', async () => {
    const { env, client, asked } = inputEnv();
    const result = viewerHandlers.mouse_move(args('mouse_move', { x: 5000, y: 2 }), env);
    await expect(result).rejects.toThrow(/outside the 1280×800 desktop/);
    expect(client.sent).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('asks the receipt for a click after all of its input', async () => {
    const { env, client, asked, answer } = inputEnv();
    const result = viewerHandlers.click_at(args('click_at', { x: 3, y: 4, clicks: 2 }), env);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(asked).toEqual([client.sent.length]);
    expect(client.sent.length).toBe(5);
    answer();
    await expect(result).resolves.toMatchObject({ success: true });
  });
});
