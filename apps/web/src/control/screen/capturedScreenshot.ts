// A take_screenshot answer as the viewer holds it: the metadata plus the encoded image as bytes.
// It is the tool's viewer result (data, the base64, is there when read), but the control channel
// sends it as one binary frame of the raw bytes (imageFrame.ts; channel.ts), so on that path the
// page never makes the base64 at all. Anything that serializes it (a text fallback, a test)
// still gets the full result through toJSON.
import type { TakeScreenshotResult, TakeScreenshotViewerResult } from '@overlay-companion/protocol';

/** Base64 of `bytes` in the page (no Buffer here); chunked so no argument list gets too long. */
export function base64Of(bytes: Uint8Array): string {
  const CHUNK = 0x8000;
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK)
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** Characters of the base64 of `byteLength` bytes, without making it. */
export function base64Length(byteLength: number): number {
  return Math.ceil(byteLength / 3) * 4;
}

export class CapturedScreenshot implements TakeScreenshotViewerResult {
  readonly width: number;
  readonly height: number;
  readonly region: TakeScreenshotResult['region'];
  readonly scale: number;
  readonly monitor_index: number;
  readonly display_scale: number;
  readonly viewport_scroll: TakeScreenshotResult['viewport_scroll'];
  readonly format: TakeScreenshotResult['format'];
  readonly byte_length: number;
  readonly frame_age_ms?: number;
  readonly #image: Uint8Array;
  #data: string | undefined;

  constructor(meta: TakeScreenshotResult, image: Uint8Array) {
    this.width = meta.width;
    this.height = meta.height;
    this.region = meta.region;
    this.scale = meta.scale;
    this.monitor_index = meta.monitor_index;
    this.display_scale = meta.display_scale;
    this.viewport_scroll = meta.viewport_scroll;
    this.format = meta.format;
    this.byte_length = meta.byte_length;
    if (meta.frame_age_ms !== undefined) this.frame_age_ms = meta.frame_age_ms;
    this.#image = image;
  }

  /** The encoded image (not a copy: callers must not change it). */
  get image(): Uint8Array {
    return this.#image;
  }

  /** The metadata alone: the take_screenshot result without its image. */
  get meta(): TakeScreenshotResult {
    return {
      width: this.width,
      height: this.height,
      region: this.region,
      scale: this.scale,
      monitor_index: this.monitor_index,
      display_scale: this.display_scale,
      viewport_scroll: this.viewport_scroll,
      format: this.format,
      byte_length: this.byte_length,
      ...(this.frame_age_ms === undefined ? {} : { frame_age_ms: this.frame_age_ms }),
    };
  }

  get data(): string {
    this.#data ??= base64Of(this.#image);
    return this.#data;
  }

  toJSON(): TakeScreenshotViewerResult {
    return { ...this.meta, data: this.data };
  }
}
