// ControlChannel against a FAKE socket (the real /ws/viewer is covered by the e2e test): every
// frame parsed (bad ones warned about and ignored), sends only while open, a screenshot as one
// binary frame, reconnects with backoff after a close or a failed ticket, fresh ticket per
// attempt, stop() means stop.
import {
  PROTOCOL_VERSION,
  defaultPermissions,
  parseImageFrame,
  type TakeScreenshotViewerResult,
} from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlChannel, ticketSocketUrl, type SocketLike } from './channel.js';
import { CapturedScreenshot } from './screen/capturedScreenshot.js';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: Array<string | Uint8Array> = [];
  closedWith: [number | undefined, string | undefined] | null = null;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string | Uint8Array) {
    this.sent.push(data);
  }
  close(code?: number, reason?: string) {
    this.closedWith = [code, reason];
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({} as Event);
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }
}

const hello = JSON.stringify({
  type: 'hello',
  protocol_version: PROTOCOL_VERSION,
  viewer_id: 'v1',
  mode: 'assist',
  role: 'control',
  headless: false,
  permissions: defaultPermissions(),
});

describe('ControlChannel', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(tickets: Array<string | Error> = ['t1', 't2', 't3']) {
    const sockets: FakeSocket[] = [];
    const messages: unknown[] = [];
    const warnings: string[] = [];
    const downs: Array<[string, number | null]> = [];
    let n = 0;
    const channel = new ControlChannel({
      socketUrl: () => {
        const t = tickets[n++] ?? 'tx';
        return t instanceof Error
          ? Promise.reject(t)
          : Promise.resolve(`ws://h/ws/viewer?ticket=${t}`);
      },
      openSocket: (url) => {
        const s = new FakeSocket(url);
        sockets.push(s);
        return s;
      },
      onMessage: (m) => messages.push(m),
      onDown: (detail, retryAt) => downs.push([detail, retryAt]),
      random: () => 0.5,
      warn: (w) => warnings.push(w),
    });
    return { channel, sockets, messages, warnings, downs };
  }

  it('delivers parsed messages and ignores bad frames with a warning', async () => {
    const { channel, sockets, messages, warnings } = setup();
    channel.start();
    await vi.advanceTimersByTimeAsync(0);
    const socket = sockets[0];
    socket?.open();
    const deliver = (data: string) => socket?.onmessage?.({ data } as MessageEvent);
    deliver(hello);
    deliver('{"type":"tool_call","id":"x","name":"click_at","args":{"x":-1}}');
    deliver('not json');
    expect(messages).toHaveLength(1);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/invalid tool_call/);
  });

  it('sends only while open', async () => {
    const { channel, sockets } = setup();
    expect(channel.send({ type: 'stop_pressed' })).toBe(false);
    channel.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(channel.send({ type: 'stop_pressed' })).toBe(false);
    sockets[0]?.open();
    expect(channel.send({ type: 'stop_pressed' })).toBe(true);
    expect(sockets[0]?.sent).toEqual(['{"type":"stop_pressed"}']);
  });

  it('sends a captured screenshot as one binary frame of its raw image, its data never made', async () => {
    const { channel, sockets } = setup();
    channel.start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]?.open();
    const image = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    const meta = {
      width: 2,
      height: 1,
      region: { x: 0, y: 0, width: 2, height: 1 },
      scale: 1,
      monitor_index: 0,
      display_scale: 1,
      viewport_scroll: { x: 0, y: 0 },
      format: 'png' as const,
      byte_length: image.length,
      frame_age_ms: 5,
    };
    const shot = new CapturedScreenshot(meta, image);
    const data = vi.spyOn(shot, 'data', 'get');
    // As the controller hands it over: typed as the tool's viewer result.
    const result: TakeScreenshotViewerResult = shot;
    expect(channel.send({ type: 'tool_result', id: 'call_1', result })).toBe(true);
    const frame = sockets[0]?.sent[0];
    if (!(frame instanceof Uint8Array)) throw new Error('not a binary frame');
    const parsed = parseImageFrame(frame);
    expect(parsed).toEqual({
      ok: true,
      header: { type: 'tool_result_image', id: 'call_1', result: meta },
      image,
    });
    expect(data).not.toHaveBeenCalled();
    // Serialized some other way it is still the whole viewer result, base64 included.
    expect(JSON.parse(JSON.stringify(shot))).toEqual({ ...meta, data: 'iVBORwECAw==' });
  });

  it('reconnects with backoff and a fresh ticket after a close', async () => {
    const { channel, sockets, downs } = setup();
    channel.start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]?.open();
    sockets[0]?.drop(1001, 'The bridge is shutting down.');
    expect(downs[0]?.[0]).toMatch(/shutting down/);
    await vi.advanceTimersByTimeAsync(499);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(2);
    expect(sockets[1]?.url).toContain('ticket=t2');
  });

  it('retries when the ticket request fails, with growing delays', async () => {
    const { channel, sockets, downs } = setup([new Error('refused'), new Error('refused'), 't3']);
    channel.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(downs[0]?.[0]).toBe('refused');
    await vi.advanceTimersByTimeAsync(500);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sockets).toHaveLength(1);
    expect(sockets[0]?.url).toContain('ticket=t3');
  });

  it('stops for good on stop() and giveUp()', async () => {
    const { channel, sockets, downs } = setup();
    channel.start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]?.open();
    channel.giveUp('The bridge speaks another protocol version.');
    expect(sockets[0]?.closedWith?.[0]).toBe(1000);
    expect(downs.at(-1)).toEqual(['The bridge speaks another protocol version.', null]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
  });
});

describe('ticketSocketUrl', () => {
  it('asks for a fresh ticket per attempt and builds a wss URL with it', async () => {
    let n = 0;
    const source = ticketSocketUrl({ protocol: 'https:', host: 'x:1' }, () =>
      Promise.resolve(`a b${++n}`),
    );
    expect(await source()).toBe('wss://x:1/ws/viewer?ticket=a%20b1');
    expect(await source()).toBe('wss://x:1/ws/viewer?ticket=a%20b2');
  });

  it("passes on the ticket source's refusal", async () => {
    await expect(
      ticketSocketUrl({ protocol: 'http:', host: 'h' }, () =>
        Promise.reject(new Error('Sign in first.')),
      )(),
    ).rejects.toThrow('Sign in first.');
  });
});
