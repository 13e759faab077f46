// The remote clipboard: keeps the latest text the remote desktop sent (client.onclipboard, read
// with a StringReader) for get_clipboard, and writes set_clipboard's text as a text/plain
// clipboard stream through a StringWriter. Non-text clipboard streams are refused politely.
import Guacamole from 'guacamole-common-js';
import {
  MAX_CLIPBOARD_CHARS,
  type ToolArgs,
  type ToolViewerResult,
} from '@overlay-companion/protocol';

export class ClipboardWatch {
  #latest: string | undefined;
  readonly #listeners = new Set<(text: string) => void>();

  /** Told the text each time the remote clipboard changes (the menu's clipboard panel). */
  subscribe(listener: (text: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The latest remote clipboard text ('' when none arrived yet). */
  get latest(): string {
    return this.#latest ?? '';
  }

  #changed(text: string): void {
    this.#latest = text;
    for (const listener of this.#listeners) listener(text);
  }

  /** Start listening to a new client's clipboard (call for every client the session makes). */
  attach(client: Guacamole.Client | null): void {
    if (client === null) return;
    client.onclipboard = (stream, mimetype) => {
      if (!mimetype.startsWith('text/')) {
        stream.sendAck(
          'Only text clipboard content is used by the viewer.',
          Guacamole.Status.Code.UNSUPPORTED,
        );
        return;
      }
      const reader = new Guacamole.StringReader(stream);
      let text = '';
      reader.ontext = (chunk) => {
        // The remote desktop is hostile input: keep at most what the protocol can carry.
        if (text.length < MAX_CLIPBOARD_CHARS) text = (text + chunk).slice(0, MAX_CLIPBOARD_CHARS);
      };
      reader.onend = () => this.#changed(text);
    };
  }

  get(): ToolViewerResult<'get_clipboard'> {
    return this.#latest === undefined || this.#latest === ''
      ? { text: '', available: false }
      : { text: this.#latest, available: true };
  }

  set(
    client: Pick<Guacamole.Client, 'createClipboardStream'>,
    args: ToolArgs<'set_clipboard'>,
  ): ToolViewerResult<'set_clipboard'> {
    const stream = client.createClipboardStream('text/plain');
    const writer = new Guacamole.StringWriter(stream);
    writer.sendText(args.text);
    writer.sendEnd();
    // The desktop does not echo our own text back; remember it so get_clipboard agrees.
    this.#changed(args.text);
    return { ok: true };
  }
}
