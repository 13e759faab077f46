// Unit tests of the tunnel's small parts: close codes and reasons as guacamole-common-js reads
// them, desktop size parsing, the VNC first-key primer, holding frames until the first paint,
// and whole-instruction batching.
import { encodeInstruction, GuacParser } from '@overlay-companion/guac';
import { describe, expect, it } from 'vitest';
import { closeCodeFor, closeReasonFor, statusFromClose } from './closeStatus.js';
import { DESKTOP_SIZE_LIMITS, parseDesktopSize } from '../desktops/desktopSize.js';
import { FirstPaintGate } from './firstPaint.js';
import { KeymapPrimer } from './keymapPrimer.js';
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

describe('desktop size', () => {
  it('parses WIDTHxHEIGHT within the limits every path accepts', () => {
    expect(parseDesktopSize('3840x1080', '--desktop-size')).toEqual({ width: 3840, height: 1080 });
    expect(parseDesktopSize(' 1280 X 800 ', 'OC_DESKTOP_SIZE')).toEqual({
      width: 1280,
      height: 800,
    });
  });

  it('refuses other text and out-of-range sides, naming the flag and the limits', () => {
    for (const bad of ['1280', '1280x', 'wide x tall', '100x800', '1280x9000', '-5x800']) {
      expect(() => parseDesktopSize(bad, '--desktop-size')).toThrow(
        new RegExp(
          `^--desktop-size expects WIDTHxHEIGHT .*from ${DESKTOP_SIZE_LIMITS.min} to ${DESKTOP_SIZE_LIMITS.max}`,
        ),
      );
    }
  });
});

describe('KeymapPrimer', () => {
  const shiftTap = encodeInstruction('key', 0xffe1, 1) + encodeInstruction('key', 0xffe1, 0);

  it('sends a Shift tap before a first key the US keymap lacks, and only then', () => {
    const primer = new KeymapPrimer();
    expect(primer.before(['228', '1'])).toBe(shiftTap); // ä
    expect(primer.before(['228', '0'])).toBe('');
    expect(primer.before(['8364', '1'])).toBe(''); // € later: the server has seen a key
  });

  it('sends nothing when the first key is in every keymap or is a release', () => {
    for (const first of [
      ['97', '1'],
      ['65293', '1'],
      ['228', '0'],
    ]) {
      const primer = new KeymapPrimer();
      expect(primer.before(first)).toBe('');
      expect(primer.before(['228', '1'])).toBe('');
    }
  });
});

describe('FirstPaintGate', () => {
  const at = (opcode: string, ...args: string[]) => ({ opcode, args });

  it('holds frames until the desktop has a size and a drawing on it', () => {
    const gate = new FirstPaintGate(0, 10_000);
    expect(gate.passes(at('sync', '1'), 1)).toBe(false);
    expect(gate.passes(at('img', '1', '14', '-1', 'image/png', '0', '0'), 2)).toBe(true);
    expect(gate.passes(at('sync', '2'), 3)).toBe(false); // the cursor's layer is not the desktop
    expect(gate.passes(at('size', '0', '1280', '800'), 4)).toBe(true);
    expect(gate.passes(at('sync', '3'), 5)).toBe(false);
    expect(gate.passes(at('img', '2', '14', '0', 'image/png', '0', '0'), 6)).toBe(true);
    expect(gate.passes(at('sync', '4'), 7)).toBe(true);
    expect(gate.passes(at('sync', '5'), 8)).toBe(true);
  });

  it('counts copies and fills on the default layer as drawing', () => {
    for (const drawing of [
      at('copy', '-1', '0', '0', '10', '10', '12', '0', '5', '5'),
      at('cfill', '14', '0', '0', '0', '0', '255'),
    ]) {
      const gate = new FirstPaintGate(0);
      gate.passes(at('size', '0', '640', '480'), 1);
      gate.passes(drawing, 2);
      expect(gate.passes(at('sync', '1'), 3)).toBe(true);
    }
  });

  it('lets frames through after its wait even when nothing was drawn', () => {
    const gate = new FirstPaintGate(0, 10_000);
    expect(gate.passes(at('sync', '1'), 9_999)).toBe(false);
    expect(gate.passes(at('sync', '2'), 10_000)).toBe(true);
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
