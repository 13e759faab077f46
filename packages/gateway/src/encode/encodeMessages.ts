// The messages between the encode pool and its worker threads (structured clone; pixel and image
// data travel as transferred ArrayBuffers, never copied).
import type { EncodeMode, ImageMimetype } from './imageTypes.js';

export interface EncodeTask {
  id: number;
  width: number;
  height: number;
  /** Tight RGBA, width*height*4 bytes. */
  pixels: ArrayBuffer;
  mode: EncodeMode;
  /** Scale the pixels to this size before encoding (a thumbnail: guacUser.ts). */
  scaleTo?: { width: number; height: number } | undefined;
}

export type EncodeReply =
  | { id: number; ok: true; mimetype: ImageMimetype; lossy: boolean; data: ArrayBuffer }
  | { id: number; ok: false; error: string };
