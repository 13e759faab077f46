// The clipboard side of one RFB connection: reading ServerCutText, negotiating and running the
// Extended Clipboard exchange (caps, request, peek, notify, provide) and falling back to Latin-1
// cut text when the server never offers it. Owns what the server said it can do and the text we
// last offered. The wire format of Extended Clipboard payloads lives in extendedClipboard.ts;
// the socket, the message loop and the event emitter stay with RfbClient.
import type { ByteReader } from './byteReader.js';
import * as msg from './clientMessages.js';
import { protocolError } from './errors.js';
import {
  ClipFlag,
  MAX_CLIPBOARD_BYTES,
  capsMessage,
  notifyMessage,
  parseExtendedClipboard,
  provideTextMessage,
  requestMessage,
} from './extendedClipboard.js';

/** What the clipboard needs from its connection. */
export interface ClipboardHost {
  /** Writes a client message (dropped once the connection is closed). */
  send(data: Buffer): void;
  /** The server's clipboard text arrived. */
  received(text: string): void;
}

export class RfbClipboard {
  /** True once the server has sent its Extended Clipboard capabilities. */
  extended = false;

  private serverActions = 0;
  private localText: string | undefined;

  constructor(
    private readonly reader: ByteReader,
    private readonly host: ClipboardHost,
  ) {}

  /** Extended Clipboard (UTF-8) when offered, else Latin-1 ClientCutText. */
  set(text: string): void {
    if (!this.extended) {
      this.host.send(msg.clientCutTextLatin1(text));
      return;
    }
    this.localText = text;
    if (this.serverActions & ClipFlag.notify) {
      this.sendExtended(notifyMessage(ClipFlag.text)); // the server asks with 'request'
    } else if (this.serverActions & ClipFlag.provide) {
      this.sendExtended(provideTextMessage(text));
    }
  }

  /** Reads the rest of a ServerCutText message (its type byte already read) and answers it. */
  async readServerCutText(): Promise<void> {
    const head = await this.reader.read(7);
    const length = head.readInt32BE(3);
    if (Math.abs(length) > MAX_CLIPBOARD_BYTES)
      throw protocolError(`cut text of ${Math.abs(length)} bytes (limit ${MAX_CLIPBOARD_BYTES})`);
    const payload = await this.reader.read(Math.abs(length));
    if (length >= 0) {
      this.host.received(payload.toString('latin1'));
      return;
    }
    const message = parseExtendedClipboard(payload);
    switch (message.action) {
      case 'caps':
        this.extended = true;
        this.serverActions = message.actions;
        this.sendExtended(capsMessage());
        break;
      case 'notify':
        // The server's clipboard changed; fetch the text right away (Guacamole pushes clipboard).
        if (message.formats & ClipFlag.text) this.sendExtended(requestMessage(ClipFlag.text));
        break;
      case 'request':
        if (message.formats & ClipFlag.text)
          this.sendExtended(provideTextMessage(this.localText ?? ''));
        break;
      case 'peek':
        this.sendExtended(notifyMessage(this.localText === undefined ? 0 : ClipFlag.text));
        break;
      case 'provide':
        if (message.text !== undefined) this.host.received(message.text);
        break;
      default: {
        const never: never = message;
        throw protocolError(`unexpected clipboard message ${String(never)}`);
      }
    }
  }

  private sendExtended(payload: Buffer): void {
    this.host.send(msg.clientCutTextRaw(-payload.length, payload));
  }
}
