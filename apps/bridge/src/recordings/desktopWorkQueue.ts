// The recordings' work per desktop done one piece after the other (a start, a stop, a rotation),
// while different desktops' go on side by side: each piece begins once the desktop's previous one
// has settled, failed or not, so a stop never overtakes the start it ends and two starts never
// make two recordings of one connection.
export class DesktopWorkQueue {
  /** Per desktop, the last piece of work queued (gone once it settles with nothing after it). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    /** Told of a piece that failed; the queue goes on with the next. */
    private readonly failed: (err: unknown, desktopId: string) => void,
  ) {}

  /** Runs `work` after the desktop's earlier work; settles (never rejects) when it is done. */
  run(desktopId: string, work: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(desktopId) ?? Promise.resolve();
    const next = previous.then(work).catch((err: unknown) => this.failed(err, desktopId));
    this.queues.set(desktopId, next);
    void next.then(() => {
      if (this.queues.get(desktopId) === next) this.queues.delete(desktopId);
    });
    return next;
  }

  /** Settles once every piece queued so far, and any queued meanwhile, is done. */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }
}
