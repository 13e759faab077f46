// Calls and approval requests waiting for a viewer's answer. Every entry has a timer and knows
// the viewer it was sent to, so a timeout, that viewer leaving, Stop, or the MCP client
// cancelling settles it at once, exactly once. Settling is the only way an entry leaves.
import { ProtocolError } from '@overlay-companion/protocol';

interface Entry<T> {
  viewerId: string;
  resolve: (value: T) => void;
  reject: (error: ProtocolError) => void;
  timer: NodeJS.Timeout;
  detach: () => void;
}

export interface WaitOptions {
  viewerId: string;
  timeoutMs: number;
  /** Runs when the timer fires; returns the error (or, for approvals, the value) to settle with. */
  onTimeout: () => { error: ProtocolError } | { value: unknown };
  signal?: AbortSignal | undefined;
  /** Runs when `signal` aborts (the MCP request was cancelled); returns the error to reject with. */
  onAbort?: () => ProtocolError;
}

export class PendingTable<T> {
  private readonly entries = new Map<string, Entry<T>>();

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  viewerOf(id: string): string | undefined {
    return this.entries.get(id)?.viewerId;
  }

  /** Registers `id` and returns the promise its answer settles. */
  wait(id: string, options: WaitOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        const outcome = options.onTimeout();
        if ('error' in outcome) this.reject(id, outcome.error);
        else this.resolve(id, outcome.value as T);
      }, options.timeoutMs);
      timer.unref();
      const signal = options.signal;
      const onAbort = (): void => {
        this.reject(
          id,
          options.onAbort?.() ?? new ProtocolError('cancelled', 'The request was cancelled.'),
        );
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.entries.set(id, {
        viewerId: options.viewerId,
        resolve,
        reject,
        timer,
        detach: () => signal?.removeEventListener('abort', onAbort),
      });
      if (signal?.aborted === true) onAbort();
    });
  }

  resolve(id: string, value: T): boolean {
    const entry = this.take(id);
    entry?.resolve(value);
    return entry !== undefined;
  }

  reject(id: string, error: ProtocolError): boolean {
    const entry = this.take(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** Rejects every entry sent to `viewerId`; returns their ids. */
  rejectForViewer(viewerId: string, error: () => ProtocolError): string[] {
    const ids = [...this.entries].filter(([, e]) => e.viewerId === viewerId).map(([id]) => id);
    for (const id of ids) this.reject(id, error());
    return ids;
  }

  /** Rejects every entry; returns their ids. */
  rejectAll(error: () => ProtocolError): string[] {
    const ids = [...this.entries.keys()];
    for (const id of ids) this.reject(id, error());
    return ids;
  }

  private take(id: string): Entry<T> | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    clearTimeout(entry.timer);
    entry.detach();
    return entry;
  }
}
