// Measures what a full-screen frame costs the gateway: the copy-out plus PNG encode of one
// region with the same settings the frame path uses. Shared by the bench script and tests so
// the numbers reported are those of the real code path.
import { BLOB_RAW_BYTES } from './instructions.js';
import { encodeRegionPng, type PngOptions } from './png.js';
import type { Rect } from './rect.js';

export interface EncodeMeasurement {
  iterations: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** PNG bytes of the last encode (the content is the same every time). */
  pngBytes: number;
  /** Bytes on the wire for that image: base64 blobs plus instruction framing, roughly. */
  wireBytes: number;
  /** Every encode time, sorted, for callers that summarise differently. */
  samplesMs: number[];
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

/** Encodes `rect` (default: the whole framebuffer) `iterations` times, after a short warm-up. */
export async function measureRegionEncode(
  framebuffer: Buffer,
  width: number,
  height: number,
  options: { iterations?: number; rect?: Rect; png?: PngOptions } = {},
): Promise<EncodeMeasurement> {
  const iterations = options.iterations ?? 50;
  const rect = options.rect ?? { x: 0, y: 0, width, height };
  for (let i = 0; i < 3; i++) await encodeRegionPng(framebuffer, width, rect, options.png);
  const times: number[] = [];
  let pngBytes = 0;
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    const png = await encodeRegionPng(framebuffer, width, rect, options.png);
    times.push(performance.now() - start);
    pngBytes = png.length;
  }
  times.sort((a, b) => a - b);
  const blobs = Math.ceil(pngBytes / BLOB_RAW_BYTES);
  return {
    iterations,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    meanMs: times.reduce((s, t) => s + t, 0) / times.length,
    pngBytes,
    wireBytes: Math.ceil(pngBytes / 3) * 4 + blobs * 20,
    samplesMs: times,
  };
}
