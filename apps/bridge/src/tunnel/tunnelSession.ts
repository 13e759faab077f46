// One Guacamole tunnel: a browser WebSocket on one side, a connection to the guacd-compatible
// server on the other — a new one for the person's first window, a join of the person's running
// connection for the others (desktopConnections.ts). The bridge does the guacd handshake itself
// with server-side connection parameters, then relays whole instructions both ways:
//   guacd → browser: parsed, re-batched into messages of whole instructions, sent at once; the
//   desktop's size (layer 0) is noted for the person; frames before the desktop is drawn are
//   acknowledged here instead (firstPaint.ts); what the server's instructions say (an error, the
//   size, whether the desktop answered) is read by upstreamInstructions.ts;
//   the link to the desktop behind guacd is watched for a stall guacd would not report
//   (linkWatch.ts), which ends the tunnel with 514;
//   browser → guacd: parsed (browserParser.ts; malformed input ends only this tunnel with 768),
//   internal `ping` answered here, input receipts to inputReceipts.ts, attention to
//   tunnelAttention.ts, the rest filtered by browserInput.ts (`size` dropped: the desktop's size
//   is the bridge's decision, never a window's) and forwarded.
// Either side ending ends the other; the browser learns the Guacamole status from the close
// reason (see closeStatus.ts). Backpressure both ways is tunnelFlow.ts's.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { WebSocket, type RawData } from 'ws';
import {
  ATTENTION_OPCODE,
  DELIVERY_OPCODE,
  GuacConnection,
  GuacStatus,
  encodeInstruction,
  encodeInstructionUtf16 as encodeForBrowser,
  type GuacInstruction,
} from '@overlay-companion/guac';
import type { ConnectionConfig, GuacdAddress, TunnelConfig } from '../config.js';
import { ATTENTION_TUNNEL_OPCODE, INPUT_RECEIPT_OPCODE } from '@overlay-companion/protocol';
import { BrowserInput } from './browserInput.js';
import { BrowserParser } from './browserParser.js';
import type { CallReceipts, ReceiptTunnel } from './callReceipts.js';
import { InputReceiptDesk } from './inputReceipts.js';
import { closeCodeFor, closeReasonFor } from './closeStatus.js';
import { FirstPaintGate } from './firstPaint.js';
import { LinkWatch } from './linkWatch.js';
import { probeTargetOf, type SharedProbes } from './linkProbe.js';
import { MessageBatcher } from './messageBatcher.js';
import type { ConnectionMember, DesktopConnections } from './desktopConnections.js';
import type { RegisteredTunnel } from './registry.js';
import { TunnelAttentionPass } from './tunnelAttention.js';
import { TunnelFlow } from './tunnelFlow.js';
import { describeStartFailure } from './upstream.js';
import { desktopSizeOf, fromTheDesktop, upstreamErrorOf } from './upstreamInstructions.js';

export interface TunnelTarget {
  guacd: GuacdAddress;
  connection: ConnectionConfig;
}

export interface TunnelSessionOptions {
  /** The desktop this tunnel shows (every window on it shares one connection). */
  desktopId: string;
  protocol: ConnectionConfig['protocol'];
  /** A view grant: the person's input never reaches the desktop (browserInput.ts drops it). */
  readOnly: boolean;
  /** The signed-in person whose tunnel this is (their ticket's). */
  personId: string;
  /** Receipt tokens of this bridge's relayed calls: answers under them settle those calls. */
  callReceipts?: CallReceipts | undefined;
  connections: DesktopConnections;
  limits: TunnelConfig;
  logger: Logger;
  /** Called once when the session starts and once when it has ended. */
  onStart(session: TunnelSession): void;
  onEnd(session: TunnelSession): void;
  /** What the tunnel learns about the desktop link (TunnelRegistry, for /readyz). */
  link?: { linkTimedOut(): void; desktopAnswered(): void } | undefined;
  /**
   * Probes of desktop servers, shared by the bridge's tunnels: with them each tunnel watches its
   * desktop link for a stall the server in between does not report (linkWatch.ts).
   */
  linkProbes?: SharedProbes | undefined;
  metrics?: TunnelMetrics | undefined;
}

/** What the tunnel reports to /metrics (BridgeMetrics). */
export interface TunnelMetrics {
  /** A frame (a `sync` instruction) went from the desktop server to the browser. */
  tunnelFrame(): void;
  tunnelTraffic(direction: 'to_browser' | 'to_desktop', bytes: number): void;
}

type Side = 'browser' | 'upstream' | 'bridge';

export class TunnelSession implements RegisteredTunnel, ConnectionMember {
  readonly uuid = randomUUID();
  readonly openedAt = Date.now();
  connectionId: string | undefined;
  /** True when this tunnel joined the person's running connection rather than opening it. */
  joined = false;

  private readonly log: Logger;
  private readonly batcher: MessageBatcher;
  private readonly browserParser = new BrowserParser();
  private socket: Socket | undefined;
  private conn: GuacConnection | undefined;
  /** Encoded browser instructions that arrived before the handshake finished. */
  private readonly early: string[] = [];
  private relaying = false;
  private ended = false;
  /** Backpressure both ways, and the bytes each way for /metrics. */
  private readonly flow: TunnelFlow;
  /** The last `error` instruction guacd sent, reported again in the close reason. */
  private upstreamError: { status: number; message: string } | undefined;
  private upstreamFault: Error | undefined;
  /** Set once the person's connection counts this tunnel (until end()). */
  private member = false;
  private readonly input: BrowserInput;
  private firstPaint = new FirstPaintGate();
  private linkWatch: LinkWatch | undefined;
  private readonly receipts: InputReceiptDesk;
  /** This tunnel as call receipts see it (callReceipts.ts). */
  private readonly receiptTunnel: ReceiptTunnel;
  /** The browser's attention, passed on to a server that honours it (tunnelAttention.ts). */
  private readonly attention = new TunnelAttentionPass((opcode, level) =>
    this.sendUpstream(opcode, level),
  );

  constructor(
    private readonly ws: WebSocket,
    private readonly options: TunnelSessionOptions,
  ) {
    this.log = options.logger.child({ tunnel: this.uuid });
    this.flow = new TunnelFlow(ws, {
      limits: options.limits,
      metrics: options.metrics,
      log: this.log,
      ended: () => this.ended,
    });
    this.batcher = new MessageBatcher(
      (message) => this.flow.toBrowser(message),
      options.limits.maxMessageChars,
    );
    ws.on('message', (data, isBinary) => this.onBrowserMessage(data, isBinary));
    ws.on('close', (code) =>
      this.end(GuacStatus.SUCCESS, `browser closed the WebSocket (${code})`, 'browser'),
    );
    ws.on('error', (err) => this.log.debug({ err }, 'browser WebSocket error'));
    this.input = new BrowserInput(options.protocol, options.readOnly);
    this.receiptTunnel = {
      uuid: this.uuid,
      desktopId: options.desktopId,
      personId: options.personId,
      readOnly: options.readOnly,
    };
    this.receipts = new InputReceiptDesk({
      readOnly: options.readOnly,
      answer: (id, outcome) => {
        // The call this receipt is for settles first. When that settled it here, the browser
        // hears the answer a turn later (setImmediate), once the call's MCP answer has left: the
        // browser's wake-up and the answer it sends in turn (dropped: the call is settled) would
        // otherwise take this 2-core machine's CPU from the AI client's answer (~0.5 ms p50).
        const settled = options.callReceipts?.answered(id, this.receiptTunnel, outcome) === true;
        const tell = (): void => {
          if (this.ended) return;
          this.batcher.push(encodeForBrowser(INPUT_RECEIPT_OPCODE, id, outcome));
          this.batcher.flush();
        };
        if (settled) setImmediate(tell);
        else tell();
      },
      connected: () => this.relaying && !this.ended,
      sendUpstream: (opcode, ...args) => this.sendUpstream(opcode, ...args),
      vouch: () => this.linkWatch?.vouch(),
    });
    options.onStart(this);
  }

  /** Opens or joins the person's connection, then relays until either side ends. */
  async start(): Promise<void> {
    const { connections, desktopId } = this.options;
    try {
      const opened = await connections.open(desktopId);
      this.socket = opened.socket;
      this.conn = opened.conn;
      this.flow.connected(opened.socket, opened.conn);
      this.joined = opened.joined;
      if (this.ended) {
        // The browser left while the connection opened: leave it too.
        opened.conn.send('disconnect');
        opened.conn.close();
        connections.release(desktopId, this);
        return;
      }
      connections.attach(desktopId, this);
      this.member = true;
      this.beginRelay(opened.conn, opened.connectionId);
      this.watchLink();
    } catch (err) {
      this.failBeforeRelay(err);
    }
  }

  /** For the person's connection: one instruction to the desktop server (resizes). */
  sendUpstream(opcode: string, ...args: (string | number)[]): boolean {
    if (!this.relaying || this.ended) return false;
    this.flow.toDesktop(encodeInstruction(opcode, ...args));
    return true;
  }

  /** Ends the tunnel from the bridge's side (bad request parameters, shutdown). */
  close(status: number, message: string): void {
    if (!this.relaying && !this.ended && this.ws.readyState === WebSocket.OPEN) {
      this.sendErrorToBrowser(status, message);
    }
    this.end(status, message, 'bridge');
  }

  private beginRelay(conn: GuacConnection, connectionId: string): void {
    this.connectionId = connectionId;
    this.relaying = true;
    this.firstPaint = new FirstPaintGate();
    // The connection id would let anyone who reaches guacd join this desktop: never logged.
    this.log.info({ joined: this.joined }, 'tunnel open');
    // The UUID goes alone in the first message: guacamole-common-js takes the tunnel UUID from
    // the first instruction and only then considers the tunnel open.
    this.batcher.push(encodeForBrowser('', this.uuid));
    this.batcher.flush();
    // clientHandshake consumed guacd's `ready`. The browser gets one too, but with this tunnel's
    // own id: guacd's connection id is a capability to join the desktop (with real guacd, for
    // anyone who can reach it) and must not leave the bridge.
    this.batcher.push(encodeForBrowser('ready', `$${this.uuid}`));
    conn.on('instruction', (instruction) => this.onUpstreamInstruction(instruction));
    conn.on('error', (err) => {
      this.upstreamFault = err;
    });
    conn.on('close', () => this.onUpstreamClose());
    if (this.early.length > 0) this.flow.toDesktop(this.early.splice(0).join(''));
  }

  /**
   * Watches the link to the desktop server behind guacd (or the gateway), which may stall
   * without either saying so: Apache guacd 1.6 never does (linkProbe.ts).
   */
  private watchLink(): void {
    const probes = this.options.linkProbes;
    const connection = this.options.connections.targetOf(this.options.desktopId)?.connection;
    const target = connection === undefined ? undefined : probeTargetOf(connection);
    if (probes === undefined || target === undefined || this.ended) return;
    const watch: LinkWatch = new LinkWatch({
      probe: (timeoutMs, notBefore) => probes.run(target, timeoutMs, notBefore),
      stalled: (quietForMs) => {
        const seconds = Math.round(quietForMs / 1000);
        const message = `The desktop stopped answering: nothing came from it for ${seconds} s and its server did not answer a probe. The viewer reconnects once it answers again.`;
        this.log.warn({ quietForMs }, 'desktop link stalled');
        if (this.ws.readyState === WebSocket.OPEN) {
          this.batcher.push(encodeForBrowser('error', message, GuacStatus.UPSTREAM_TIMEOUT));
        }
        this.end(GuacStatus.UPSTREAM_TIMEOUT, message, 'upstream');
      },
    });
    this.linkWatch = watch;
  }

  private onUpstreamInstruction(instruction: GuacInstruction): void {
    if (instruction.opcode === ATTENTION_OPCODE) {
      // Our gateway's announcement (packages/guac's attention.ts); never for the browser.
      this.attention.serverAnnounced();
      return;
    }
    if (instruction.opcode === DELIVERY_OPCODE) {
      // Between the bridge and our gateway only (inputReceipts.ts); never for the browser.
      const { confirmedByServer } = this.receipts.fromServer(instruction.args);
      if (confirmedByServer) this.linkWatch?.heard();
      return;
    }
    if (fromTheDesktop(instruction.opcode)) {
      this.linkWatch?.heard();
      this.options.link?.desktopAnswered();
    }
    if (instruction.opcode === 'error') this.upstreamError = upstreamErrorOf(instruction);
    const size = desktopSizeOf(instruction);
    if (size !== undefined) this.options.connections.sawSize(this.options.desktopId, size);
    if (!this.firstPaint.passes(instruction)) {
      // A frame before the desktop was drawn: acknowledged here, never shown (firstPaint.ts).
      this.flow.toDesktop(encodeInstruction('sync', instruction.args[0] ?? '0'));
      return;
    }
    if (instruction.opcode === 'sync') {
      this.options.metrics?.tunnelFrame();
      this.options.connections.framePainted(this.options.desktopId);
    }
    this.batcher.push(encodeForBrowser(instruction.opcode, ...instruction.args));
  }

  private onUpstreamClose(): void {
    if (this.upstreamError) {
      this.end(this.upstreamError.status, this.upstreamError.message, 'upstream');
    } else if (this.upstreamFault) {
      this.end(
        GuacStatus.UPSTREAM_ERROR,
        `The desktop server connection failed: ${this.upstreamFault.message}`,
        'upstream',
      );
    } else {
      this.end(GuacStatus.SUCCESS, 'The desktop session ended.', 'upstream');
    }
  }

  private onBrowserMessage(data: RawData, isBinary: boolean): void {
    if (this.ended) return;
    if (isBinary) {
      this.close(
        GuacStatus.CLIENT_BAD_TYPE,
        'The tunnel accepts Guacamole instructions as text messages only.',
      );
      return;
    }
    const read = this.browserParser.read(data);
    if (!read.ok) {
      const { status, why } = read;
      this.log.info({ status, why }, 'malformed instruction from the browser');
      this.close(status, `Malformed Guacamole instruction from the browser: ${why}`);
      return;
    }
    let forward = '';
    for (const instruction of read.instructions) {
      if (instruction.opcode === '') this.onInternal(instruction);
      else if (instruction.opcode === INPUT_RECEIPT_OPCODE) {
        // The input before it goes first: the receipt is about that input.
        this.forwardInput(forward);
        forward = '';
        const id = instruction.args[0];
        if (id !== undefined && instruction.args.length === 1)
          this.options.callReceipts?.asked(id, this.receiptTunnel);
        if (!this.receipts.request(instruction.args)) {
          this.close(
            GuacStatus.CLIENT_BAD_REQUEST,
            `Malformed "${INPUT_RECEIPT_OPCODE}" instruction: it takes one receipt id (1–9 digits, or a call's receipt token).`,
          );
          return;
        }
      } else if (instruction.opcode === ATTENTION_TUNNEL_OPCODE) {
        const malformed = this.attention.fromBrowser(instruction.args);
        if (malformed !== undefined) {
          this.close(GuacStatus.CLIENT_BAD_REQUEST, malformed);
          return;
        }
      } else forward += this.input.toUpstream(instruction);
    }
    this.forwardInput(forward);
  }

  /** Sends the browser's encoded input on, or holds it until the connection is ready. */
  private forwardInput(forward: string): void {
    if (forward === '' || this.ended) return;
    if (this.relaying) {
      this.linkWatch?.inputSent();
      this.flow.toDesktop(forward);
    } else if (this.early.length >= this.options.limits.maxEarlyMessages) {
      this.close(
        GuacStatus.CLIENT_OVERRUN,
        'The browser sent too much before the desktop connection was ready.',
      );
    } else {
      this.early.push(forward);
    }
  }

  /** Tunnel-internal instructions (empty opcode) are for the bridge, never for guacd. */
  private onInternal(instruction: GuacInstruction): void {
    // Pings before the UUID went out would be taken for the UUID by the client; it only pings
    // once the tunnel is open, so dropping early ones loses nothing.
    if (instruction.args[0] === 'ping' && this.relaying) {
      this.batcher.push(encodeForBrowser('', ...instruction.args));
      this.batcher.flush();
    }
  }

  private sendErrorToBrowser(status: number, message: string): void {
    // The client needs its UUID before it acts on anything, then shows the error's text.
    this.batcher.push(encodeForBrowser('', this.uuid));
    this.batcher.flush();
    this.batcher.push(encodeForBrowser('error', message, status));
  }

  private failBeforeRelay(err: unknown): void {
    if (this.ended) return;
    const { status, message } = describeStartFailure(err);
    this.log.warn({ status, why: message }, 'tunnel could not be opened');
    if (this.ws.readyState === WebSocket.OPEN) this.sendErrorToBrowser(status, message);
    this.end(status, message, 'upstream');
  }

  private end(status: number, message: string, side: Side): void {
    if (this.ended) return;
    // Receipts still open are answered `lost` before the close frame (what the browser waits on).
    this.receipts.end();
    this.ended = true;
    this.linkWatch?.stop();
    this.log.info({ status, side, why: message }, 'tunnel closed');
    if (status === GuacStatus.UPSTREAM_TIMEOUT && side === 'upstream') {
      this.options.link?.linkTimedOut();
    }
    this.flow.ending();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.batcher.flush();
      this.ws.close(closeCodeFor(status), closeReasonFor(status, message));
    } else {
      this.batcher.discard();
    }
    const conn = this.conn;
    if (conn && !conn.isClosed) {
      // Tell guacd the user left so it ends the session cleanly rather than on a reset.
      if (this.relaying && side !== 'upstream') conn.send('disconnect');
      conn.close();
    } else if (!conn) {
      this.socket?.destroy();
    }
    if (this.member) this.options.connections.release(this.options.desktopId, this);
    this.options.onEnd(this);
  }
}
