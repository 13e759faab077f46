// Test support: a SCRIPTED FLEET PAGE — a plain `ws` client on /ws/fleet with a signed-in
// session's fleet ticket, recording every frame the bridge sends (each checked against the
// protocol's schema, so the bridge's output is validated too).
import {
  parseFleetMessage,
  type BridgeToFleet,
  type FleetDesktop,
  type FleetToBridge,
} from '@overlay-companion/protocol';
import WebSocket from 'ws';
import { waitUntil } from '../../mcp/testing/wait.js';
import type { BrowserSession } from '../../testing/browserSession.js';

export class FleetClient {
  readonly received: BridgeToFleet[] = [];
  readonly invalid: string[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      const parsed = parseFleetMessage(text);
      if (parsed.ok) this.received.push(parsed.message);
      else this.invalid.push(`${parsed.error}: ${text.slice(0, 200)}`);
    });
  }

  static async connect(session: BrowserSession): Promise<FleetClient> {
    const ticket = await session.ticket('fleet');
    const url = new URL(`/ws/fleet?ticket=${encodeURIComponent(ticket)}`, session.url);
    url.protocol = 'ws:';
    const ws = new WebSocket(url, { origin: new URL(session.url).origin });
    const client = new FleetClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused: ${res.statusCode}`)),
      );
      ws.once('error', reject);
      ws.once('open', () => resolve());
    });
    await client.waitForState(() => true);
    return client;
  }

  send(message: FleetToBridge | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The latest fleet_state's desktops. */
  get desktops(): FleetDesktop[] {
    for (let i = this.received.length - 1; i >= 0; i -= 1) {
      const message = this.received[i];
      if (message?.type === 'fleet_state') return message.desktops;
    }
    return [];
  }

  /** Waits until the latest state satisfies `check`, and returns it. */
  async waitForState(check: (desktops: FleetDesktop[]) => boolean): Promise<FleetDesktop[]> {
    await waitUntil(
      () => this.received.some((m) => m.type === 'fleet_state') && check(this.desktops),
      5000,
    );
    return this.desktops;
  }

  /** Waits for the next message of `type` after this call. */
  next<T extends BridgeToFleet['type']>(
    type: T,
  ): () => Promise<Extract<BridgeToFleet, { type: T }>> {
    const seen = this.received.filter((m) => m.type === type).length;
    return async () => {
      await waitUntil(() => this.received.filter((m) => m.type === type).length > seen, 5000);
      return this.received.filter((m) => m.type === type)[seen] as Extract<
        BridgeToFleet,
        { type: T }
      >;
    };
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
