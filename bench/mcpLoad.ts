// Many MCP clients at once: `sessions` SDK clients, each with its own Streamable HTTP session,
// calling one cheap tool in a loop for a fixed time. With `perSessionRate` each client starts at
// most that many calls per second (a paced client, the way a well-behaved agent calls);
// without it each client calls back to back, and the bridge's per-session rate limit answers
// the excess with rate_limited, counted apart from real errors.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, closeHttp, connectHttp, sleep } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';

export interface LoadResults {
  sessions: number;
  tool: string;
  seconds: number;
  /** Calls per second each client may start, or null when unthrottled. */
  per_session_rate: number | null;
  calls: number;
  calls_per_s: number;
  /** Failures other than rate_limited: isError results and thrown calls. */
  errors: number;
  rate_limited: number;
  /** First few error texts, to say what went wrong. */
  error_examples: string[];
  latency_ms: Summary;
}

export async function hammer(options: {
  mcpUrl: string;
  token: string;
  sessions: number;
  seconds: number;
  perSessionRate?: number;
  tool: string;
  args: Record<string, unknown>;
}): Promise<LoadResults> {
  const clients: Client[] = [];
  try {
    for (let i = 0; i < options.sessions; i++) {
      clients.push(await connectHttp(options.mcpUrl, options.token, `oc-bench-load-${i}`));
    }
    // One unrecorded call each: every session's first call pays for tools/list (the SDK caches
    // output schemas) and the bridge's first relay.
    await Promise.all(clients.map((c) => callTool(c, options.tool, options.args)));

    const latencies: number[] = [];
    const examples: string[] = [];
    let ok = 0;
    let errors = 0;
    let limited = 0;
    const note = (text: string) => {
      if (examples.length < 5) examples.push(text.slice(0, 300));
    };
    const interval = options.perSessionRate === undefined ? 0 : 1000 / options.perSessionRate;
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    await Promise.all(
      clients.map(async (client, i) => {
        // Spread the paced clients over one interval so they do not all fire together.
        let next = started + (interval * i) / clients.length;
        if (interval > 0) await sleep(next - performance.now());
        while (performance.now() < deadline) {
          const start = performance.now();
          try {
            const outcome = await callTool(client, options.tool, options.args);
            if (!outcome.isError) ok++;
            else if (outcome.text.startsWith('rate_limited')) limited++;
            else {
              errors++;
              note(outcome.text);
            }
          } catch (err) {
            errors++;
            note(err instanceof Error ? err.message : String(err));
          }
          latencies.push(performance.now() - start);
          if (interval > 0) {
            next += interval;
            await sleep(next - performance.now());
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    return {
      sessions: options.sessions,
      tool: options.tool,
      seconds: Math.round(elapsed * 100) / 100,
      per_session_rate: options.perSessionRate ?? null,
      calls: ok,
      calls_per_s: Math.round(ok / elapsed),
      errors,
      rate_limited: limited,
      error_examples: examples,
      latency_ms: summarize(latencies),
    };
  } finally {
    // Each session ends on the bridge too: it caps the open sessions of a token.
    await Promise.all(clients.map((c) => closeHttp(c)));
  }
}
