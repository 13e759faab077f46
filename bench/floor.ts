// The machine's floor for one local round trip right now: a bare HTTP POST from this process to
// a tiny echo server in another Node process over loopback. Every MCP call crosses at least two
// such hops (client → bridge, bridge ⇄ viewer), so on a loaded 2-core machine this number says
// how much of a round trip is the scheduler rather than our code. Paced like the bridge's loops
// (`gapMs` between calls), since waking an idle process is part of every real round trip.
import { spawn } from 'node:child_process';
import { timeRuns } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';

const ECHO_SERVER = `require('node:http').createServer((q, s) => {
  let body = '';
  q.on('data', (c) => (body += c));
  q.on('end', () => s.end(body));
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;

export async function httpEchoFloor(samples: number, gapMs: number): Promise<Summary> {
  const child = spawn(process.execPath, ['-e', ECHO_SERVER], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const port = await new Promise<number>((ok, fail) => {
      child.stdout.once('data', (chunk: Buffer) => ok(Number(chunk.toString().trim())));
      child.once('exit', () => fail(new Error('the echo server exited')));
    });
    const url = `http://127.0.0.1:${port}/`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
    const times = await timeRuns(
      samples,
      20,
      async () => {
        const response = await fetch(url, { method: 'POST', body });
        await response.text();
      },
      gapMs,
    );
    return summarize(times);
  } finally {
    child.kill();
  }
}
