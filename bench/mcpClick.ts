// click_at through the whole stack until the X server has the press: the call's start is
// stamped in this process, the ButtonPress by the xev watcher (xButtons.ts) when xev prints it.
// Calls are spaced so the bridge's input bucket (10/s, burst 20 per session) never refuses one.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callOk, now, sleep } from './mcpClient.js';
import { drainViewerSamples, type McpStack } from './mcpStack.js';
import { summarize, type Summary } from './stats.js';
import { watchButtons } from './xButtons.js';

export interface ClickResults {
  /** From the call's start until xev reads the ButtonPress from the X server. */
  to_x_press_ms: Summary;
  /** The same calls, from start until the MCP result arrived. */
  round_trip_ms: Summary;
  /** Between the viewer receiving the tool_call and sending its result. */
  in_viewer_ms: Summary;
  /**
   * What showing each click costs the page (activity/aiActivity.ts's User Timing): the AI
   * pointer, ripple and acting count, synchronously; and with the indicator's React render.
   * Target ≤ 1 ms p50.
   */
  page_ai_pointer_ms: Summary;
  page_ai_pointer_with_render_ms: Summary;
}

const CLICK_GAP_MS = 120;
const WARMUP = 5;
/** Points inside the xev window, as fractions of its size; varied so no two clicks coincide. */
const SPOTS = [
  [0.3, 0.3],
  [0.6, 0.4],
  [0.4, 0.7],
  [0.7, 0.6],
] as const;

export async function benchClicks(
  stack: McpStack,
  client: Client,
  samples: number,
): Promise<ClickResults> {
  const watcher = await watchButtons(stack.xEnv);
  const press: number[] = [];
  const trip: number[] = [];
  try {
    await drainViewerSamples(stack.page);
    await stack.page.evaluate(`performance.clearMeasures()`);
    for (let i = 0; i < samples + WARMUP; i++) {
      const [fx, fy] = SPOTS[i % SPOTS.length]!;
      const x = Math.round(watcher.rect.x + watcher.rect.width * fx);
      const y = Math.round(watcher.rect.y + watcher.rect.height * fy);
      const start = now();
      const pressed = watcher.nextPress(start);
      await callOk(client, 'click_at', { x, y });
      const done = now();
      const at = await pressed;
      if (i >= WARMUP) {
        press.push(at - start);
        trip.push(done - start);
      }
      await sleep(CLICK_GAP_MS);
    }
    const viewer = (await drainViewerSamples(stack.page))
      .filter((s) => s.name === 'click_at')
      .slice(WARMUP);
    const durations = (name: string) =>
      stack.page.evaluate<number[]>(
        `performance.getEntriesByName(${JSON.stringify(name)}).map((e) => e.duration).slice(${WARMUP})`,
      );
    return {
      to_x_press_ms: summarize(press),
      round_trip_ms: summarize(trip),
      in_viewer_ms: summarize(viewer.map((s) => s.handleMs)),
      page_ai_pointer_ms: summarize(await durations('oc-ai-action')),
      page_ai_pointer_with_render_ms: summarize(await durations('oc-ai-action-render')),
    };
  } finally {
    watcher.stop();
  }
}
