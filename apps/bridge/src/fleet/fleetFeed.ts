// What one open fleet feed (/ws/fleet, fleetSocket.ts) shows, pushed when it changes and never
// polled: the feed listens to the sources of everything a tile shows — each desktop's viewer hub
// (mode, who is in charge, the control window, the approvals, the AI clients: what its windows are
// told, HubListener.shownChanged and approvalsListed; in a site, the other bridges' AI clients and
// the control window's lease moving reach the hub too: Plane.controlPlaceChanged), the desktop
// directory (a desktop or grant added, changed or removed: DesktopDirectory.onInvalidated) and the
// people (a role changed, an account disabled: ApiTokenAuth.onChanged) — and re-reads when one
// fires. Many changes in one turn
// of the event loop make one re-read (setImmediate), and a re-read that finds nothing new sends
// nothing. While nothing changes it does no work at all.
import type { FleetDesktop } from '@overlay-companion/protocol';
import type { PersonDesktop } from '../desktops/desktopDirectory.js';
import type { DesktopPlane } from '../mcp/desktopPlanes.js';
import { fleetDesktop, visibleDesktops, withPlanes, type FleetSources } from './fleetState.js';

/** After a read failed (the store is away), how soon the feed reads everything again. */
export const FLEET_RETRY_MS = 2000;

export interface FleetFeedSources extends FleetSources {
  /** A person's role or account may have changed (ApiTokenAuth.onChanged). */
  peopleChanged(listener: () => void): () => void;
}

export interface FleetFeedOptions {
  sources: FleetFeedSources;
  personId: string;
  /** The state changed: send it. */
  send(desktops: FleetDesktop[]): void;
  /** The person is no longer active (disabled or removed): close the feed. */
  inactive(): void;
  /** A re-read failed (the store is away): said in the log; the next change reads again. */
  failed(err: unknown): void;
  /** Called at each re-read of the planes (tests count them: an idle feed makes none). */
  onRead?: () => void;
}

export class FleetFeed {
  /** The desktops the person may see, as last read. */
  private visible: PersonDesktop[] = [];
  /** Whether to read them again (a change that comes during that read sets it again). */
  private accessStale = true;
  /** The planes listened to, each with how to stop listening. */
  private readonly listening = new Map<DesktopPlane, () => void>();
  private readonly unlisten: Array<() => void>;
  private last = '';
  private dirty = false;
  private scheduled = false;
  private reading = false;
  private closed = false;

  constructor(private readonly options: FleetFeedOptions) {
    const { sources } = options;
    const accessChanged = (): void => this.changed('access');
    this.unlisten = [
      sources.directory.onInvalidated(accessChanged),
      sources.peopleChanged(accessChanged),
    ];
    this.changed('access');
  }

  /**
   * Something the feed shows may have changed: re-read it once this turn of the event loop is
   * over. `access`: which desktops the person may see, too (a store read), not just the planes.
   */
  changed(what: 'planes' | 'access' = 'planes'): void {
    if (this.closed) return;
    if (what === 'access') this.accessStale = true;
    this.dirty = true;
    if (this.scheduled || this.reading) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.readWhileDirty();
    });
  }

  close(): void {
    this.closed = true;
    for (const stop of [...this.unlisten, ...this.listening.values()]) stop();
    this.listening.clear();
  }

  /** Re-reads until no change came in meanwhile (a change during a read is not lost). */
  private async readWhileDirty(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.dirty && !this.closed) {
        this.dirty = false;
        await this.read();
      }
    } catch (err) {
      // The store is away (or a plane failed to load): read all of it again in a moment, as
      // nothing may change to make the feed read again.
      this.options.failed(err);
      setTimeout(() => this.changed('access'), FLEET_RETRY_MS).unref();
    } finally {
      this.reading = false;
    }
    // A change that came in while a read failed is read now.
    if (this.dirty) this.changed();
  }

  private async read(): Promise<void> {
    const { sources, personId } = this.options;
    this.options.onRead?.();
    if (this.accessStale) {
      this.accessStale = false;
      const visible = await visibleDesktops(sources, personId);
      if (visible === undefined) {
        this.options.inactive();
        this.close();
        return;
      }
      this.visible = visible;
    }
    // The planes are asked for each time (a map lookup): a desktop's plane may have been dropped
    // and made afresh (its owner removed), and the feed must listen to the one in use.
    const found = await withPlanes(sources.planes, this.visible);
    if (this.closed) return;
    this.listenTo(found.map((f) => f.plane));
    const desktops = found.map(({ desktop, plane }) => fleetDesktop(personId, desktop, plane));
    const text = JSON.stringify(desktops);
    if (text === this.last) return;
    this.last = text;
    this.options.send(desktops);
  }

  /** Listens to exactly `planes`' hubs: newly seen ones are added, gone ones dropped. */
  private listenTo(planes: DesktopPlane[]): void {
    const wanted = new Set(planes);
    for (const [plane, stop] of this.listening)
      if (!wanted.has(plane)) {
        stop();
        this.listening.delete(plane);
      }
    const changed = (): void => this.changed('planes');
    for (const plane of wanted)
      if (!this.listening.has(plane))
        this.listening.set(
          plane,
          plane.hub.listen({ shownChanged: changed, approvalsListed: changed }),
        );
  }
}
