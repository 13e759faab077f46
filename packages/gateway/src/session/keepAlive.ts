// Keeps one browser's connection alive and notices a silent one: a `nop` at least every
// keepAliveMs (so the browser and proxies between see traffic on a still screen), and the
// connection is ended once the browser has sent nothing for idleTimeoutMs (it must send `nop`
// or `sync` every few seconds). One timer per browser, ticking at most once a second.

export interface KeepAliveOptions {
  /** End the connection when the browser sends nothing for this long; 0 disables. */
  idleTimeoutMs: number;
  keepAliveMs: number;
}

export class KeepAlive {
  private lastReceived = Date.now();
  private lastKeepAlive = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly options: KeepAliveOptions,
    private readonly on: {
      /** Send a `nop`. */
      nop(): void;
      /** The browser has been silent for idleTimeoutMs. */
      idle(): void;
    },
  ) {
    this.timer = setInterval(() => this.tick(), Math.min(options.keepAliveMs, 1000));
    this.timer.unref();
  }

  /** The browser sent something. */
  received(): void {
    this.lastReceived = Date.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = Date.now();
    if (this.options.idleTimeoutMs > 0 && now - this.lastReceived > this.options.idleTimeoutMs) {
      this.on.idle();
      return;
    }
    if (now - this.lastKeepAlive >= this.options.keepAliveMs) {
      this.lastKeepAlive = now;
      this.on.nop();
    }
  }
}
