import { describe, expect, it } from 'vitest';
import {
  BLOB_RAW_BYTES,
  moveInstructions,
  cursorInstructions,
  pngInstructions,
} from './instructions.js';

describe('image instructions', () => {
  it('splits data into blobs of at most 6048 raw bytes, base64-encoded, then end', () => {
    const data = Buffer.alloc(BLOB_RAW_BYTES * 2 + 5, 7);
    const out = pngInstructions(3, 0, 10, 20, data);
    // mask 14 (OVER): SRC (12) makes Chromium clear the rest of the visible layer.
    expect(out[0]).toEqual(['img', 3, 14, 0, 'image/png', 10, 20]);
    const blobs = out.filter((i) => i[0] === 'blob');
    expect(blobs).toHaveLength(3);
    const joined = Buffer.concat(blobs.map((b) => Buffer.from(String(b[2]), 'base64')));
    expect(joined.equals(data)).toBe(true);
    expect(Buffer.from(String(blobs[0]?.[2]), 'base64').length).toBe(BLOB_RAW_BYTES);
    expect(out.at(-1)).toEqual(['end', 3]);
  });

  it('moves regions through buffer -2 with OVER, never SRC and never within one canvas', () => {
    const move = moveInstructions({ srcX: 1, srcY: 2, x: 3, y: 4, width: 5, height: 6 });
    expect(move).toEqual([
      ['copy', 0, 1, 2, 5, 6, 14, -2, 1, 2],
      ['copy', -2, 1, 2, 5, 6, 14, 0, 3, 4],
    ]);
  });

  it('draws the cursor into buffer -1 before pointing the cursor at it', () => {
    const out = cursorInstructions(5, 2, 3, 16, 16, Buffer.from('png'));
    expect(out.map((i) => i[0])).toEqual(['size', 'img', 'blob', 'end', 'cursor']);
    expect(out[0]).toEqual(['size', -1, 16, 16]);
    expect(out.at(-1)).toEqual(['cursor', 2, 3, -1, 0, 0, 16, 16]);
  });
});
