// Test support for store-outage fault tests: a real bridge (real MCP client, a SCRIPTED VIEWER
// answering click_at and take_screenshot) whose store the test breaks and mends, tool calls made
// one after another through the outage with what each returned, and the check that every call
// that returned ok — and every refusal — has its audit entry afterwards, in call order, with
// the time the call was made.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import type { AuditRecord } from '../../store/types.js';
import { callTool, errorOf } from '../../mcp/testing/calls.js';
import { screenshotResult, type TestBridge } from '../../mcp/testing/fixtures.js';
import type { ScriptedViewer } from '../../mcp/testing/scriptedViewer.js';

export interface CallMade {
  tool: 'click_at' | 'take_screenshot';
  sentAt: number;
  returnedAt: number;
  /** ok, or the error kind. */
  outcome: string;
  message?: string;
  retryAfterMs?: number | undefined;
}

export function answerCalls(viewer: ScriptedViewer): void {
  viewer.on('click_at', { result: { success: true, was_confirmed: false } });
  viewer.on('take_screenshot', { result: screenshotResult() });
}

/** One call, as the AI makes it, with what came back. */
export async function makeCall(client: Client, tool: CallMade['tool']): Promise<CallMade> {
  const sentAt = Date.now();
  const args = tool === 'click_at' ? { x: 10, y: 10 } : {};
  const result = await callTool(client, tool, args);
  const returnedAt = Date.now();
  if (result.isError !== true) return { tool, sentAt, returnedAt, outcome: 'ok' };
  const error = errorOf(result);
  return {
    tool,
    sentAt,
    returnedAt,
    outcome: error.kind,
    message: error.message,
    retryAfterMs: error.retry_after_ms,
  };
}

/**
 * Click and screenshot in turn until input has been refused `refusals` times and a screenshot
 * has still returned ok after the first refusal, or `deadline`.
 */
export async function callUntilInputRefused(
  client: Client,
  deadline: number,
  refusals = 3,
): Promise<CallMade[]> {
  const calls: CallMade[] = [];
  let refused = 0;
  let lookedAfter = false;
  while (Date.now() < deadline && !(refused >= refusals && lookedAfter)) {
    const tool = calls.length % 2 === 0 ? 'click_at' : 'take_screenshot';
    const call = await makeCall(client, tool);
    calls.push(call);
    if (tool === 'click_at' && call.outcome === 'rate_limited') refused += 1;
    if (tool === 'take_screenshot' && call.outcome === 'ok' && refused > 0) lookedAfter = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return calls;
}

/** Waits until the audit has written everything it holds (the store is back). */
export async function auditCaughtUp(
  bridge: Pick<TestBridge, 'access'>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (bridge.access.audit.state().waiting > 0) {
    if (Date.now() > deadline) throw new Error('the audit did not catch up after the outage');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await bridge.access.audit.flush();
}

/** Every audit entry from `from` on, oldest first (by id: the order they were written in). */
export async function entriesSince(
  bridge: Pick<TestBridge, 'access'>,
  from: number,
): Promise<AuditRecord[]> {
  const rows = await bridge.access.store.audit.query({ from, limit: 1_000 });
  return rows.reverse();
}

/**
 * The tool-call entries match the calls one for one, in order, each at the time its call was
 * made (the bridge's start of the call, between sending and the answer); returns how many of the
 * calls had returned ok.
 */
export function expectEveryCallAudited(calls: CallMade[], entries: AuditRecord[]): number {
  const toolEntries = entries.filter((e) => e.kind === 'tool_call');
  expect(toolEntries.map((e) => [e.tool, e.outcome])).toEqual(
    calls.map((c) => [c.tool, c.outcome]),
  );
  toolEntries.forEach((entry, i) => {
    const call = calls[i];
    expect(call).toBeDefined();
    expect(entry.at).toBeGreaterThanOrEqual(call?.sentAt ?? 0);
    expect(entry.at).toBeLessThanOrEqual(call?.returnedAt ?? 0);
  });
  return calls.filter((c) => c.outcome === 'ok').length;
}

/** The entry written at recovery, after every entry queued during the outage. */
export function outageEntry(entries: AuditRecord[]): AuditRecord {
  const outages = entries.filter((e) => e.kind === 'audit_outage');
  expect(outages).toHaveLength(1);
  const [outage] = outages;
  if (outage === undefined) throw new Error('no audit_outage entry');
  expect(outage.outcome).toBe('recovered');
  expect(outage.detail).toMatch(
    /^the audit could not be written from \d{4}-\S+Z to \d{4}-\S+Z \(.+\); \d+ entries were queued and written now$/,
  );
  return outage;
}
