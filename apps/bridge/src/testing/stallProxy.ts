// Test support: a stream proxy the test controls, to put between a desktop server and the
// desktop it reaches (the gateway and Xvnc, guacd and xrdp). pause() stops forwarding in both
// directions without closing anything — a link that stalled, as a stuck router or a frozen VM
// makes one — and resume() lets the held bytes through again. Listens on a Unix socket or on
// a TCP port of 127.0.0.1; forwards to either.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyEnd = { path: string } | { host: string; port: number };

/** Bytes held back while paused, per direction (pipe() could resume a paused socket on drain). */
interface Pair {
  sockets: [Socket, Socket];
  held: [Buffer[], Buffer[]];
}

export class StallProxy {
  private readonly pairs = new Set<Pair>();
  private paused = false;

  private server: Server | undefined;
  /** Where the proxy listens (with the port chosen when 0 was asked for). */
  listening: ProxyEnd = { path: '' };

  private constructor() {}

  static async start(listen: ProxyEnd, target: ProxyEnd): Promise<StallProxy> {
    const proxy = new StallProxy();
    const server = createServer((client) => {
      const upstream = 'path' in target ? connect({ path: target.path }) : connect(target);
      const pair: Pair = { sockets: [client, upstream], held: [[], []] };
      proxy.pairs.add(pair);
      const end = () => {
        proxy.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.on('data', (chunk: Buffer) => {
        if (proxy.paused === true) pair.held[0].push(chunk);
        else upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (proxy.paused === true) pair.held[1].push(chunk);
        else client.write(chunk);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if ('path' in listen) server.listen(listen.path, resolve);
      else server.listen(listen.port, listen.host, resolve);
    });
    const address = server.address();
    const actual: ProxyEnd =
      'path' in listen || address === null || typeof address === 'string'
        ? listen
        : { host: listen.host, port: address.port };
    proxy.server = server;
    proxy.listening = actual;
    return proxy;
  }

  /** Stops forwarding, both ways, on every connection (new ones too) until resume(). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    for (const { sockets, held } of this.pairs) {
      for (const chunk of held[0].splice(0)) sockets[1].write(chunk);
      for (const chunk of held[1].splice(0)) sockets[0].write(chunk);
    }
  }

  get connections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    for (const { sockets } of this.pairs) for (const socket of sockets) socket.destroy();
    const server = this.server;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
