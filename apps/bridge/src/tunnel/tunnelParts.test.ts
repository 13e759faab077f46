// Unit tests of the tunnel's small parts: close codes and reasons as guacamole-common-js reads
// them, browser parameter validation and clamping, and whole-instruction batching.
import { encodeInstruction, GuacParser } from '@overlay-companion/guac';
import { describe, expect, it } from 'vitest';
import { parseBrowserParams, SCREEN_LIMITS } from './browserParams.js';
import { closeCodeFor, closeReasonFor, statusFromClose } from './closeStatus.js';
import { MessageBatcher } from './messageBatcher.js';

describe('close status', () => {
  it('puts the status first in the reason, where guacamole-common-js parseInt()s it', () => {
    const reason = closeReasonFor(768, 'Malformed instruction');
    expect(Number.parseInt(reason, 10)).toBe(768);
    expect(reason).toBe('768 Malformed instruction');
    expect(closeCodeFor(768)).toBe(4768);
    expect(closeCodeFor(0)).toBe(1000);
    expect(statusFromClose(4519, '519 unreachable')).toBe(519);
    expect(statusFromClose(4519, '')).toBe(519);
    expect(statusFromClose(1000, '')).toBe(0);
  });

  it('keeps the reason within the 123 bytes RFC 6455 allows, on a character boundary', () => {
    const reason = closeReasonFor(515, 'é🙂'.repeat(100));
    expect(Buffer.byteLength(reason, 'utf8')).toBeLessThanOrEqual(123);
    expect(reason.startsWith('515 é🙂')).toBe(true);
    expect(reason.endsWith('…')).toBe(true);
    expect(reason).not.toContain('\uFFFD');
  });
});

describe('browser parameters', () => {
  const parse = (query: string) => parseBrowserParams(new URLSearchParams(query));

  it('reads width, height and dpi and ignores everything else', () => {
    expect(parse('width=1280&height=800&dpi=120&hostname=evil&port=22')).toEqual({
      ok: true,
      params: { width: 1280, height: 800, dpi: 120 },
    });
  });

  it('uses defaults when absent and clamps out-of-range numbers', () => {
    expect(parse('')).toEqual({ ok: true, params: { width: 1024, height: 768, dpi: 96 } });
    expect(parse('width=999999&height=1&dpi=2.6')).toEqual({
      ok: true,
      params: {
        width: SCREEN_LIMITS.width.max,
        height: SCREEN_LIMITS.height.min,
        dpi: SCREEN_LIMITS.dpi.min,
      },
    });
  });

  it('rejects non-numbers naming the field', () => {
    const result = parse('width=1280&height=-5');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/"height"/);
    expect(parse('dpi=0x60').ok).toBe(false);
  });
});

describe('MessageBatcher', () => {
  it('sends everything pushed in one turn as one message, without timers', async () => {
    const sent: string[] = [];
    const batcher = new MessageBatcher((m) => sent.push(m), 8192);
    batcher.push(encodeInstruction('size', 0, 640, 480));
    batcher.push(encodeInstruction('sync', 12));
    expect(sent).toEqual([]);
    await Promise.resolve();
    expect(sent).toEqual(['4.size,1.0,3.640,3.480;4.sync,2.12;']);
  });

  it('never splits an instruction and keeps multi-instruction messages within the limit', async () => {
    const sent: string[] = [];
    const batcher = new MessageBatcher((m) => sent.push(m), 100);
    const pieces = Array.from({ length: 40 }, (_, i) =>
      encodeInstruction('blob', i, 'x'.repeat(i * 3)),
    );
    for (const piece of pieces) batcher.push(piece);
    await Promise.resolve();
    expect(sent.join('')).toBe(pieces.join(''));
    for (const message of sent) {
      const parser = new GuacParser();
      const instructions = parser.push(message);
      expect(parser.buffered).toBe(0);
      if (instructions.length > 1) expect(message.length).toBeLessThanOrEqual(100);
    }
  });
});
