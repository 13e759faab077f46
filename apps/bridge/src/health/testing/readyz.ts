// Test support: asking a bridge's /readyz, once or until it answers a status (its results are
// cached for a second, and what it follows changes in the background).
import type { RunningBridge } from '../../bridge.js';

export interface Readyz {
  status: number;
  text: string;
}

export async function readyz(bridge: Pick<RunningBridge, 'url'>): Promise<Readyz> {
  const response = await fetch(new URL('readyz', bridge.url));
  return { status: response.status, text: await response.text() };
}

/** Polls /readyz until `wanted` holds of its answer (a status, or a test of the answer). */
export async function readyzBecomes(
  bridge: Pick<RunningBridge, 'url'>,
  wanted: number | ((answer: Readyz) => boolean),
  timeoutMs = 10_000,
): Promise<Readyz> {
  const holds = typeof wanted === 'number' ? (a: Readyz) => a.status === wanted : wanted;
  const started = Date.now();
  for (;;) {
    const answer = await readyz(bridge);
    if (holds(answer)) return answer;
    if (Date.now() - started > timeoutMs)
      throw new Error(`/readyz stayed ${String(answer.status)} (${answer.text})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
