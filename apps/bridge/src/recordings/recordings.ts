// The bridge's session recordings: which desktops are recorded (recordingPolicy.ts), a recorder
// on each open desktop connection while its recording is on (recorder.ts: the bridge joins the
// connection as its own Guacamole user), the desktop's privacy masks handed to the writer
// whenever they change, the event track fed from what the bridge audits, one row per recording
// in the store, and what each window's desktop_state says about it. A recording starts when a
// desktop's connection opens (or its recording is turned on while open) and ends with the
// connection (or when it is turned off); the files are in `<dataDir>/recordings` (0700), named by
// a random id only.
import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { DesktopStateMessage, Overlay } from '@overlay-companion/protocol';
import {
  RecordingReader,
  RecordingWriter,
  recordingPaths,
  type Rect,
  type RecordingEventInput,
  type RecordingStatus,
  type RecordingWriterOptions,
} from '@overlay-companion/recording';
import type { OverlayChange } from '../relay/overlayRelay.js';
import type { Store } from '../store/types.js';
import type { ConnectionJoin, ConnectionObserver } from '../tunnel/desktopConnections.js';
import { ConnectionRecorder } from './recorder.js';
import { RecordingPolicy, type RecordingDecision } from './recordingPolicy.js';

export type RecordingIndicator = NonNullable<DesktopStateMessage['recording']>;

export interface RecordingsOptions {
  store: Store;
  /** Where the files go (`<dataDir>/recordings`). */
  dir: string;
  logger: Logger;
  /** serve --record / OC_RECORD=1: every desktop without a setting of its own is recorded. */
  recordByDefault?: boolean | undefined;
  /** The privacy masks in force on a desktop now (its owner's layout), in desktop pixels. */
  masks(desktopId: string): Promise<readonly Rect[]>;
  /** Writer tuning (tests: keyframe interval, disk limits). */
  writer?: Omit<RecordingWriterOptions, 'dir' | 'onStatus'> | undefined;
}

interface Active {
  id: string;
  since: number;
  writer: RecordingWriter;
  recorder: ConnectionRecorder | undefined;
  /** Why writing stopped (disk full, fell behind), while it is stopped. */
  stoppedReason: string | null;
}

export class Recordings implements ConnectionObserver {
  readonly policy: RecordingPolicy;
  private readonly joins = new Map<string, ConnectionJoin>();
  private readonly active = new Map<string, Active>();
  /** Per desktop, the work in flight (start, stop), so they happen one after the other. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly listeners = new Set<(desktopId: string) => void>();
  /** Each desktop's overlays as its windows show them (a recording starts with these drawn). */
  private readonly overlays = new Map<string, Map<string, Overlay>>();
  /** Masks set per desktop (a count, and the last), so one saved while a recording starts holds. */
  private readonly maskChanges = new Map<string, number>();
  private readonly latestMasks = new Map<string, readonly Rect[]>();
  private closed = false;

  constructor(private readonly options: RecordingsOptions) {
    this.policy = new RecordingPolicy(options.store, options.recordByDefault === true);
  }

  get dir(): string {
    return this.options.dir;
  }

  /**
   * Closes the rows a previous run left open (the bridge stopped without finishing them): their
   * end, size and gaps as the files say. Call once at start, before any connection opens.
   */
  async recover(): Promise<void> {
    const { store, dir } = this.options;
    for (const row of await store.recordings.list()) {
      if (row.endedAt !== null || this.liveIds().has(row.id)) continue;
      const reader = await RecordingReader.open(dir, row.id).catch(() => undefined);
      const end = Math.max(reader?.end ?? row.startedAt, row.startedAt);
      await store.recordings.update(row.id, {
        endedAt: end,
        bytes: await stat(recordingPaths(dir, row.id).recording).then(
          (s) => s.size,
          () => 0,
        ),
        gaps: (reader?.gaps ?? []).map((g) => ({
          from: g.from,
          to: g.to ?? end,
          reason: g.reason,
        })),
      });
    }
  }

  /** Called whenever a desktop's recording indicator changes (desktop_state follows). */
  onChange(listener: (desktopId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connectionOpened(desktopId: string, join: ConnectionJoin): void {
    this.joins.set(desktopId, join);
    void this.reconsider(desktopId);
  }

  connectionEnded(desktopId: string): void {
    this.joins.delete(desktopId);
    void this.reconsider(desktopId);
  }

  /** The desktop's setting or the bridge's changed: start or stop its recording to match. */
  reconsider(desktopId: string): Promise<void> {
    const previous = this.queues.get(desktopId) ?? Promise.resolve();
    const next = previous
      .then(() => this.apply(desktopId))
      .catch((err: unknown) =>
        this.options.logger.warn({ err, desktopId }, 'recording could not be started or stopped'),
      );
    this.queues.set(desktopId, next);
    void next.then(() => {
      if (this.queues.get(desktopId) === next) this.queues.delete(desktopId);
    });
    return next;
  }

  /** Settles every start and stop asked for so far (tests). */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }

  /** The privacy masks of a desktop changed (its owner saved a layout). */
  setMasks(desktopId: string, rects: readonly Rect[]): void {
    this.latestMasks.set(desktopId, rects);
    this.maskChanges.set(desktopId, (this.maskChanges.get(desktopId) ?? 0) + 1);
    this.active.get(desktopId)?.writer.setMasks(rects);
  }

  /** An event for the desktop's recording, if it is being recorded (already redacted). */
  event(desktopId: string, input: RecordingEventInput): void {
    const active = this.active.get(desktopId);
    if (active === undefined) return;
    try {
      active.writer.event(input);
    } catch (err) {
      this.options.logger.warn({ err, kind: input.kind }, 'a recording event was not valid');
    }
  }

  /** A desktop's overlays changed (its hub's copy): drawn and removed events follow. */
  overlaysChanged(desktopId: string, change: OverlayChange): void {
    const current = this.overlays.get(desktopId) ?? new Map<string, Overlay>();
    this.overlays.set(desktopId, current);
    const drawn = (overlay: Overlay): void => {
      current.set(overlay.overlay_id, overlay);
      this.event(desktopId, overlayDrawn(overlay));
    };
    const removed = (id: string): void => {
      if (current.delete(id)) this.event(desktopId, { kind: 'overlay.removed', id });
    };
    switch (change.type) {
      case 'overlay_created':
        drawn(change.overlay);
        break;
      case 'overlay_removed':
        removed(change.overlay_id);
        break;
      case 'clear_overlays':
        for (const id of [...current.keys()]) removed(id);
        break;
      case 'sync_state': {
        const next = new Set(change.overlays.map((o) => o.overlay_id));
        for (const id of [...current.keys()]) if (!next.has(id)) removed(id);
        for (const overlay of change.overlays)
          if (!sameOverlay(current.get(overlay.overlay_id), overlay)) drawn(overlay);
        break;
      }
    }
  }

  /** Ids of the recordings being made now. */
  liveIds(): ReadonlySet<string> {
    return new Set([...this.active.values()].map((a) => a.id));
  }

  /** The desktop's recording id being made now, if any. */
  liveOn(desktopId: string): string | undefined {
    return this.active.get(desktopId)?.id;
  }

  /** What a window of `personId` is told about the desktop's recording (desktop_state). */
  indicator(desktopId: string, viewer: { inCharge: boolean }): RecordingIndicator {
    const active = this.active.get(desktopId);
    const decision = this.policy.cached(desktopId);
    return {
      on: active !== undefined,
      since: active?.since ?? null,
      stopped_reason: active?.stoppedReason ?? null,
      may_change: viewer.inCharge && mayPersonChange(decision),
    };
  }

  /** Stops every recording (the bridge is closing) and waits for the files. */
  async close(): Promise<void> {
    this.closed = true;
    this.joins.clear();
    for (const desktopId of [...this.active.keys()]) void this.reconsider(desktopId);
    await this.settled();
  }

  private async apply(desktopId: string): Promise<void> {
    const decision = await this.policy.decide(desktopId);
    const wanted = !this.closed && this.joins.has(desktopId) && decision.on;
    const active = this.active.get(desktopId);
    if (wanted && active === undefined) await this.start(desktopId);
    else if (!wanted && active !== undefined) await this.stop(desktopId, active);
    this.changed(desktopId);
  }

  private async start(desktopId: string): Promise<void> {
    const join = this.joins.get(desktopId);
    if (join === undefined) return;
    const { store, logger } = this.options;
    const log = logger.child({ desktopId });
    const maskChangesBefore = this.maskChanges.get(desktopId) ?? 0;
    const made: { active?: Active } = {};
    const writer = await RecordingWriter.create({
      ...this.options.writer,
      dir: this.options.dir,
      onStatus: (status) => {
        if (made.active !== undefined) this.statusChanged(desktopId, made.active, status, log);
      },
    });
    const since = Date.now();
    const active: Active = {
      id: writer.id,
      since,
      writer,
      recorder: undefined,
      stoppedReason: null,
    };
    made.active = active;
    // Masks first: nothing of the desktop reaches the writer before it knows what to black out.
    writer.setMasks(await this.options.masks(desktopId).catch(() => []));
    const owner = await store.desktops.byId(desktopId);
    await store.recordings.add({
      id: writer.id,
      desktopId,
      ownerId: owner?.ownerId ?? null,
      startedAt: since,
    });
    this.active.set(desktopId, active);
    // A layout saved while this was starting found no recording to tell: its masks win over
    // the ones read above (still before the writer has seen anything of the desktop).
    if ((this.maskChanges.get(desktopId) ?? 0) !== maskChangesBefore)
      writer.setMasks(this.latestMasks.get(desktopId) ?? []);
    // The overlays on screen as it starts are part of the picture from its first moment.
    for (const overlay of this.overlays.get(desktopId)?.values() ?? [])
      this.event(desktopId, { ...overlayDrawn(overlay), t: since });
    try {
      active.recorder = await ConnectionRecorder.join(join, writer, log, () => {
        // The desktop ended the recorder's connection by itself: this recording is over.
        if (this.active.get(desktopId) === active) {
          this.joins.delete(desktopId);
          void this.reconsider(desktopId);
        }
      });
    } catch (err) {
      // The connection ended as we joined (the last window left): no recording after all.
      this.active.delete(desktopId);
      await this.finish(active);
      throw err;
    }
    log.info({ recording: writer.id }, 'recording started');
  }

  private async stop(desktopId: string, active: Active): Promise<void> {
    this.active.delete(desktopId);
    await this.finish(active);
    this.options.logger.info({ desktopId, recording: active.id }, 'recording ended');
  }

  private async finish(active: Active): Promise<void> {
    const summary = active.recorder ? await active.recorder.stop() : await active.writer.close();
    await this.options.store.recordings.update(active.id, {
      endedAt: Math.max(summary.end, active.since),
      bytes: summary.bytes,
      gaps: summary.gaps,
    });
  }

  private statusChanged(
    desktopId: string,
    active: Active,
    status: RecordingStatus,
    log: Logger,
  ): void {
    if (status.state === 'resumed') active.stoppedReason = null;
    else {
      active.stoppedReason = status.reason;
      log.warn({ recording: active.id, reason: status.reason }, 'recording stopped writing');
      this.event(desktopId, { kind: 'recording.stopped', reason: status.reason });
    }
    this.changed(desktopId);
  }

  private changed(desktopId: string): void {
    for (const listener of this.listeners) listener(desktopId);
  }
}

function overlayDrawn(overlay: Overlay): RecordingEventInput {
  const { x, y, width, height } = overlay.bounds;
  return {
    kind: 'overlay.drawn',
    id: overlay.overlay_id,
    rect: { x, y, width, height },
    ...(overlay.label === undefined ? {} : { label: overlay.label }),
    color: overlay.color,
  };
}

function sameOverlay(a: Overlay | undefined, b: Overlay): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the person in charge may switch the recording (the setting is theirs to choose). */
function mayPersonChange(decision: RecordingDecision | undefined): boolean {
  if (decision === undefined || decision.mode !== 'person') return false;
  return decision.personMayTurnOff || !decision.on;
}
