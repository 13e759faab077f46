// take_screenshot in the browser: optionally wait for a still picture, flatten the Guacamole
// display (all layers; the default layer's own canvas is padded to 64 px, flatten is not), black
// out the person's privacy masks on those full-resolution pixels, crop and scale the planned
// region into a canvas, paint overlays if asked, black the masks out again over them, encode PNG
// or JPEG with canvas.toBlob and return base64 plus the metadata the protocol defines, with the
// age of the last frame drawn; a picture whose link went silent is refused (frameCadence.ts). (The
// bridge blacks the masks out again before the image leaves it.)
import {
  MAX_SCREENSHOT_BASE64_CHARS,
  ProtocolError,
  type Monitor,
  type Overlay,
  type PrivacyMask,
  type ToolArgs,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import type Guacamole from 'guacamole-common-js';
import { drawOverlaysOnCanvas } from '../../overlay/overlaysOnCanvas.js';
import { visibleDesktopRect, type Viewport } from '../../viewport/viewport.js';
import type { DesktopSize } from '../monitors.js';
import { throwIfCancelled } from '../sleep.js';
import { framesStoppedError } from './frameCadence.js';
import type { FrameWatch } from './frameWatch.js';
import { paintMasks } from './masks.js';
import { planCapture } from './screenshotMath.js';
import { waitForScreen } from './waitForScreen.js';

/** A stability wait gives up (and captures anyway) after this much extra time. */
export const STABLE_WAIT_SLACK_MS = 5_000;
const DEFAULT_JPEG_QUALITY = 85;

export interface CaptureDeps {
  client: Pick<Guacamole.Client, 'getDisplay'>;
  desktop: DesktopSize;
  monitors: readonly Monitor[];
  viewport: Viewport;
  overlays: readonly Overlay[];
  /** The person's privacy masks: painted black over everything, overlays included. */
  masks: readonly PrivacyMask[];
  frames: FrameWatch;
  signal: AbortSignal;
}

function toBlob(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob> {
  return new Promise((resolve, reject) => {
    canvas.toBlob(
      (blob) =>
        blob === null
          ? reject(
              new ProtocolError(
                'system_error',
                `The browser could not encode the screenshot as ${type}.`,
              ),
            )
          : resolve(blob),
      type,
      quality,
    );
  });
}

function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () =>
      reject(new ProtocolError('system_error', 'Reading the encoded screenshot failed.'));
    reader.readAsDataURL(blob);
  });
}

export async function takeScreenshot(
  args: ToolArgs<'take_screenshot'>,
  deps: CaptureDeps,
): Promise<ToolViewerResult<'take_screenshot'>> {
  const plan = planCapture(args, deps.desktop, deps.monitors, visibleDesktopRect(deps.viewport));
  if (args.wait_for_stable_ms > 0) {
    await waitForScreen(
      deps.frames,
      {
        until: 'stable',
        region: plan.region,
        timeoutMs: args.wait_for_stable_ms + STABLE_WAIT_SLACK_MS,
        stableMs: args.wait_for_stable_ms,
      },
      deps.signal,
    );
  }
  throwIfCancelled(deps.signal);
  // A picture not known to be current is refused rather than returned as if it were.
  const capturedAt = Date.now();
  const silentFor = deps.frames.cadence.silentForMs(capturedAt);
  if (silentFor !== undefined) throw framesStoppedError(silentFor);
  const lastFrameAt = deps.frames.lastFrameAt;
  // flatten() draws into a new canvas on every call, so masking it touches nothing on screen.
  const flat = deps.client.getDisplay().flatten();
  // Before any scaling: smoothing blends each pixel into its neighbours, so a mask painted only
  // on the scaled image leaves a fringe of what it hides around its edge (red all round a red
  // window at scale 4). Masked first, the only thing that can blend outwards is black.
  const flatContext = flat.getContext('2d');
  if (flatContext === null)
    throw new ProtocolError('system_error', 'The browser gave no 2D canvas for the screenshot.');
  paintMasks(flatContext, deps.masks, { x: 0, y: 0, width: flat.width, height: flat.height }, 1);
  const canvas = document.createElement('canvas');
  canvas.width = plan.width;
  canvas.height = plan.height;
  const context = canvas.getContext('2d');
  if (context === null)
    throw new ProtocolError('system_error', 'The browser gave no 2D canvas for the screenshot.');
  context.imageSmoothingEnabled = plan.scale !== 1;
  context.imageSmoothingQuality = 'high';
  const r = plan.region;
  context.drawImage(flat, r.x, r.y, r.width, r.height, 0, 0, plan.width, plan.height);
  if (args.include_overlays) drawOverlaysOnCanvas(context, deps.overlays, r, plan.scale);
  // Again at the image's scale: over the overlays, and the pixels only partly masked at the edge.
  paintMasks(context, deps.masks, r, plan.scale);
  const jpeg = args.format === 'jpeg';
  const blob = await toBlob(
    canvas,
    jpeg ? 'image/jpeg' : 'image/png',
    jpeg ? (args.quality ?? DEFAULT_JPEG_QUALITY) / 100 : undefined,
  );
  const data = await base64Of(blob);
  if (data.length > MAX_SCREENSHOT_BASE64_CHARS) {
    throw new ProtocolError(
      'invalid_parameters',
      `The screenshot is ${blob.size} bytes, too large to send; capture a region, lower scale or max_dimension, or use format jpeg.`,
    );
  }
  const vp = deps.viewport;
  return {
    width: plan.width,
    height: plan.height,
    region: r,
    scale: plan.scale,
    monitor_index: plan.monitorIndex,
    display_scale: Math.min(16, Math.max(0.01, vp.scale)),
    viewport_scroll: { x: Math.max(0, Math.floor(vp.vx)), y: Math.max(0, Math.floor(vp.vy)) },
    format: args.format,
    byte_length: blob.size,
    ...(lastFrameAt > 0 ? { frame_age_ms: Math.max(0, capturedAt - lastFrameAt) } : {}),
    data,
  };
}
