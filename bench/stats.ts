// Summaries for benchmark samples: median, p99 and friends, in milliseconds, rounded for JSON.
export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** Nearest-rank percentile of already sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length)),
    min: round(sorted[0] ?? Number.NaN),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

/** ours / peer, rounded; below 1 means we are faster. */
export function ratio(ours: number, peer: number): number {
  return round(ours / peer);
}
