// One desktop connection, recorded: the bridge joins the connection as a Guacamole user of its
// own (`select $<id>`, like a further window, with the same parameters — so it works the same on
// the embedded gateway, guacd VNC and guacd RDP), answers every `sync` at once and keeps the
// connection alive with `nop` (so guacd and the gateway never wait for the recorder, whatever
// the disk does), and hands every server→client instruction to a RecordingWriter, which never
// blocks (it queues; see packages/recording's writer.ts). It sends no input and no size: the
// recorder is a silent watcher. To our gateway, which announces attention right after `ready`,
// it says so (`x-oc-passive`, packages/guac's attention.ts): then it takes the frames the
// viewers' shared stream makes at the viewers' pace and costs no encodes of its own; guacd,
// which announces nothing, never hears it.
import type { Logger } from 'pino';
import { ATTENTION_OPCODE, PASSIVE_OPCODE, type GuacConnection } from '@overlay-companion/guac';
import type { RecordingSummary, RecordingWriter } from '@overlay-companion/recording';
import type { ConnectionJoin } from '../tunnel/desktopConnections.js';
import { openUpstream } from '../tunnel/upstream.js';

/** guacd drops a user it hears nothing from for 15 s; the browser client says `nop` every 5 s. */
const KEEPALIVE_MS = 5_000;

export class ConnectionRecorder {
  private readonly keepalive: NodeJS.Timeout;
  private stopping: Promise<RecordingSummary> | undefined;

  private constructor(
    private readonly conn: GuacConnection,
    private readonly writer: RecordingWriter,
    private readonly onServerEnd: () => void,
  ) {
    conn.on('instruction', (instruction) => {
      if (instruction.opcode === 'sync') conn.send('sync', instruction.args[0] ?? '0');
      // Our gateway's announcement (no arguments; a browser-bound level never comes this way).
      if (instruction.opcode === ATTENTION_OPCODE && instruction.args.length === 0) {
        conn.send(PASSIVE_OPCODE);
        return;
      }
      writer.feed(instruction);
    });
    conn.on('error', () => undefined);
    conn.on('close', () => {
      if (this.stopping === undefined) this.onServerEnd();
    });
    this.keepalive = setInterval(() => conn.send('nop'), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /**
   * Joins the connection and starts feeding `writer`. `onServerEnd` is called when the server
   * ends the recorder's connection by itself (the desktop went away).
   */
  static async join(
    join: ConnectionJoin,
    writer: RecordingWriter,
    logger: Logger,
    onServerEnd: () => void,
  ): Promise<ConnectionRecorder> {
    const opened = await openUpstream(join.guacd, {
      select: join.select,
      params: join.params,
      size: join.size,
      timeoutMs: join.timeoutMs,
    });
    logger.debug('recorder joined the desktop connection');
    return new ConnectionRecorder(opened.conn, writer, onServerEnd);
  }

  /** Leaves the connection and finishes the recording's files. */
  stop(): Promise<RecordingSummary> {
    this.stopping ??= (async () => {
      clearInterval(this.keepalive);
      if (!this.conn.isClosed) {
        this.conn.send('disconnect');
        this.conn.close();
      }
      // The recording lasts until now, however long the screen has been still.
      return this.writer.close(Date.now());
    })();
    return this.stopping;
  }
}
