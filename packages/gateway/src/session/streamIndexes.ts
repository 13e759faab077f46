// The Guacamole stream indexes of one connection's images, cursors and clipboard texts: handed
// out in turn from 1 to 1023 and then again from 1 (a stream is over once its `end` is sent, so
// an index is free again long before it comes round).

export class StreamIndexes {
  private next = 1;

  take(): number {
    const stream = this.next;
    this.next = this.next >= 1023 ? 1 : this.next + 1;
    return stream;
  }
}
