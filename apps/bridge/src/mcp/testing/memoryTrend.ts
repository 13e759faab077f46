// Test and bench support: how fast memory grows. Samples of a size over time become a least
// squares slope in MB per minute, the number the soak test bounds and the bench reports (one
// definition for both), and this process's heap is measured after a full collection.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemorySample {
  /** Milliseconds on any steady clock. */
  atMs: number;
  bytes: number;
}

const MB = 1024 * 1024;

/** Least squares slope of `samples` in MB per minute (0 with fewer than two samples). */
export function slopeMbPerMin(samples: readonly MemorySample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanT = samples.reduce((sum, s) => sum + s.atMs, 0) / n;
  const meanB = samples.reduce((sum, s) => sum + s.bytes, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const s of samples) {
    covariance += (s.atMs - meanT) * (s.bytes - meanB);
    variance += (s.atMs - meanT) ** 2;
  }
  if (variance === 0) return 0;
  const bytesPerMs = covariance / variance;
  return Math.round(((bytesPerMs * 60_000) / MB) * 100) / 100;
}

let collect: (() => void) | undefined;

/**
 * A full garbage collection in this process, without `--expose-gc` on the command line: the
 * flag set at run time exposes `gc` in contexts made afterwards, so a fresh one hands it over.
 */
export function collectGarbage(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/** This process's heap in use right after a full collection (what is really retained). */
export function heapAfterGc(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
