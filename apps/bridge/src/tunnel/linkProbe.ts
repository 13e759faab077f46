// Asks a desktop server, on a connection of the bridge's own, whether it answers at all — the
// only way to tell a still desktop from a stalled link behind Apache guacd. guacd 1.6 has no
// upstream deadline for VNC or RDP: with the link to the desktop stalled it keeps the browser's
// connection open, sends its own `nop`s and never says a word about the desktop (measured: a
// stalled VNC link not closed in 25 s, an xrdp one not in 40 s). A still desktop sends nothing
// either. So the bridge knocks on the desktop server's door itself:
//   VNC: the RFB handshake up to ServerInit, with the connection's password, as a shared client
//   (our RFB client), then it leaves. Not less: TigerVNC counts a client that leaves before
//   finishing the handshake as a security failure and, after five, refuses every new
//   connection for a while ("Too many security failures") — guacd's included;
//   RDP: a server answers an X.224 Connection Request (the first packet of every RDP session,
//   before TLS or credentials) with a Connection Confirm; the probe leaves on its first byte
//   (xrdp forks a process per connection, which exits when the probe leaves).
// An answer within the deadline means the way to the desktop works; none means it does not.
//
// A link that stalls for the running session only, while new connections get through (a broken
// NAT entry), is not seen by this; guacd's TCP connection would have to be watched for that.
import { connect, type Socket } from 'node:net';
import { RfbClient, RfbError } from '@overlay-companion/gateway';
import type { ConnectionConfig } from '../config.js';

export type ProbeOutcome = 'answered' | 'silent' | 'refused';

/** Where the probe knocks: the desktop server guacd (or the gateway) connects to. */
export type ProbeTarget =
  | { protocol: 'rdp'; host: string; port: number }
  | ({ protocol: 'vnc'; password?: string | undefined } & (
      { host: string; port: number } | { path: string }
    ));

const DEFAULT_PORTS = { vnc: 5900, rdp: 3389 } as const;

/**
 * RDP's first packet: a TPKT header (version 3, length 19), an X.224 Connection Request
 * (length indicator 14, code 0xE0, references and class 0) and an RDP Negotiation Request
 * asking for TLS or CredSSP — what every RDP client sends first ([MS-RDPBCGR] 2.2.1.1).
 */
const X224_CONNECTION_REQUEST = Buffer.from([
  0x03, 0x00, 0x00, 0x13, 0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03,
  0x00, 0x00, 0x00,
]);

/**
 * Where a connection's desktop server is, from the parameters guacd gets (`hostname`, `port`);
 * a VNC hostname that is a path is a Unix socket (the embedded gateway's local desktops).
 * Undefined when the parameters do not say.
 */
export function probeTargetOf(connection: ConnectionConfig): ProbeTarget | undefined {
  const { hostname, password } = connection.params;
  if (hostname === undefined || hostname === '') return undefined;
  if (connection.protocol === 'vnc' && hostname.startsWith('/')) {
    return { protocol: 'vnc', path: hostname, password };
  }
  const port = Number(connection.params.port ?? DEFAULT_PORTS[connection.protocol]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  return connection.protocol === 'vnc'
    ? { protocol: 'vnc', host: hostname, port, password }
    : { protocol: 'rdp', host: hostname, port };
}

/** Knocks once: 'answered' when the server answers, 'silent' after `timeoutMs` of nothing. */
export function probeDesktopServer(target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  return target.protocol === 'vnc' ? probeVnc(target, timeoutMs) : probeRdp(target, timeoutMs);
}

async function probeVnc(
  target: Extract<ProbeTarget, { protocol: 'vnc' }>,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const { password } = target;
  const where = 'path' in target ? { path: target.path } : { host: target.host, port: target.port };
  try {
    const client = await RfbClient.connect({
      ...where,
      ...(password === undefined ? {} : { password }),
      shared: true,
      connectTimeoutMs: timeoutMs,
    });
    client.close();
    return 'answered';
  } catch (err) {
    return err instanceof RfbError && err.code === 'timeout' ? 'silent' : 'refused';
  }
}

function probeRdp(
  target: Extract<ProbeTarget, { protocol: 'rdp' }>,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: target.host, port: target.port });
    const finish = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish('silent'), timeoutMs);
    socket.once('data', () => finish('answered'));
    // A refused or reset connection is an answer of a kind: the server (or its host) is there to
    // refuse. guacd notices a dead server on its own; a stall is what only silence shows.
    socket.once('error', () => finish('refused'));
    socket.once('close', () => finish('refused'));
    socket.once('connect', () => socket.write(X224_CONNECTION_REQUEST));
  });
}

/**
 * Probes shared between the tunnels of one desktop: a probe in flight is joined, not repeated,
 * so ten windows on a stalled desktop knock once.
 */
export class SharedProbes {
  private readonly inFlight = new Map<
    string,
    { startedAt: number; outcome: Promise<ProbeOutcome> }
  >();

  constructor(
    private readonly probe: (
      target: ProbeTarget,
      timeoutMs: number,
    ) => Promise<ProbeOutcome> = probeDesktopServer,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A probe of `target` begun no earlier than `notBefore`: one under way since then is joined;
   * one begun before it is waited out and a new one started (its answer could predate what the
   * caller needs to know about).
   */
  run(
    target: ProbeTarget,
    timeoutMs: number,
    notBefore = Number.NEGATIVE_INFINITY,
  ): Promise<ProbeOutcome> {
    const key =
      'path' in target ? `unix:${target.path}` : `${target.protocol}:${target.host}:${target.port}`;
    const running = this.inFlight.get(key);
    if (running !== undefined) {
      if (running.startedAt >= notBefore) return running.outcome;
      return running.outcome.then(() => this.run(target, timeoutMs, notBefore));
    }
    const outcome = this.probe(target, timeoutMs).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, { startedAt: this.now(), outcome });
    return outcome;
  }
}
