// The messages between the encode pool and its worker threads (structured clone; pixel and image
// data travel as transferred ArrayBuffers, never copied).
import type { EncodeMode, ImageMimetype } from './imageTypes.js';
import type { Rect } from './rect.js';

/** A `from`-sized screen's thumbnail of size `to`: the part `target` of it. */
export interface ThumbnailScale {
  from: { width: number; height: number };
  to: { width: number; height: number };
  target: Rect;
}

export interface EncodeTask {
  id: number;
  width: number;
  height: number;
  /** Tight RGBA, width*height*4 bytes. */
  pixels: ArrayBuffer;
  mode: EncodeMode;
  /** The pixels are part of a screen to scale down before encoding (a thumbnail: scaleDown.ts). */
  thumbnail?: ThumbnailScale | undefined;
}

export type EncodeReply =
  | { id: number; ok: true; mimetype: ImageMimetype; lossy: boolean; data: ArrayBuffer }
  | { id: number; ok: false; error: string };
