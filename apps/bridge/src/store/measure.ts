// The cost of one audit write, for the bench (`npm run bench`) and the store tests to report:
// appends `n` typical tool-call entries one after another and returns each call's duration.
// Measuring only; speed is never asserted in tests.
import { performance } from 'node:perf_hooks';
import type { NewAuditEntry, Store } from './types.js';

/** A tool call as the MCP layer writes it (sizes like a real draw_overlay call). */
export function sampleAuditEntry(at: number): NewAuditEntry {
  return {
    at,
    kind: 'tool_call',
    actor: 'ai',
    personId: 'p_measureAuditAppend',
    personName: 'Bench Person',
    tokenId: 'tok_measureAuditAppend',
    tokenName: 'bench token',
    clientName: 'bench-client',
    tool: 'draw_overlay',
    summary: 'rect at (120, 80) 300×200, label "Submit button", color #ff0000, ttl 5s',
    decision: 'allow',
    approvedBy: null,
    outcome: 'ok',
    durationMs: 3,
    detail: null,
  };
}

/** Per-call durations of `n` sequential audit appends, in milliseconds, in call order. */
export async function measureAuditAppend(store: Store, n: number): Promise<number[]> {
  const durations: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const entry = sampleAuditEntry(Date.now());
    const started = performance.now();
    await store.audit.append(entry);
    durations.push(performance.now() - started);
  }
  return durations;
}
