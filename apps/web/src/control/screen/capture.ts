// take_screenshot in the browser: optionally wait for a still picture, then — unless the picture,
// region, size, format and masks are those of the last capture, whose bytes are reused
// (lastShot.ts) — copy the planned region into a canvas, black out the person's privacy masks,
// paint overlays if asked, black the masks out again over them, and encode PNG or JPEG with
// canvas.toBlob. At scale 1 a desktop drawn on the display's one default layer is copied
// straight from that layer's canvas (one copy, not flatten's whole desktop and then a crop);
// anything else is flattened first (all layers; the default layer's own canvas is padded to
// 64 px, flatten is not) and masked at full resolution before scaling. The answer carries the
// image as bytes (capturedScreenshot.ts) with the metadata the protocol defines and the age of
// the last frame drawn; a picture whose link went silent is refused (frameCadence.ts). (The
// bridge blacks the masks out again before the image leaves it.)
import {
  MAX_SCREENSHOT_BASE64_CHARS,
  ProtocolError,
  type Monitor,
  type Overlay,
  type PrivacyMask,
  type ToolArgs,
} from '@overlay-companion/protocol';
import type Guacamole from 'guacamole-common-js';
import { drawOverlaysOnCanvas } from '../../overlay/overlaysOnCanvas.js';
import { visibleDesktopRect, type Viewport } from '../../viewport/viewport.js';
import type { DesktopSize } from '../monitors.js';
import { throwIfCancelled } from '../sleep.js';
import { CapturedScreenshot, base64Length } from './capturedScreenshot.js';
import { framesStoppedError } from './frameCadence.js';
import type { FrameWatch } from './frameWatch.js';
import { reusableShot, storeShot, type ShotKey } from './lastShot.js';
import { paintMasks } from './masks.js';
import { planCapture, type CapturePlan } from './screenshotMath.js';
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

/** What guacamole-common-js keeps on a visible layer and its typings leave out. */
interface LayerTree {
  children: Record<string, unknown>;
  alpha: number;
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

/**
 * The one canvas every capture is painted into: a new 4 MB canvas per screenshot cost the page
 * an allocation (and its collection) each time. Sharing it is safe because toBlob encodes a copy
 * of the pixels taken when it is called, and paintCapture runs to toBlob without yielding.
 */
let scratch: HTMLCanvasElement | undefined;

function scratchCanvas(width: number, height: number): HTMLCanvasElement {
  scratch ??= document.createElement('canvas');
  if (scratch.width !== width) scratch.width = width;
  if (scratch.height !== height) scratch.height = height;
  return scratch;
}

function context2d(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const context = canvas.getContext('2d');
  if (context === null)
    throw new ProtocolError('system_error', 'The browser gave no 2D canvas for the screenshot.');
  return context;
}

/**
 * The planned region of the display's picture, masked (and with overlays when asked), in a new
 * canvas of the image's size. Synchronous: the pixels are those of the version read with it.
 */
function paintCapture(
  display: Guacamole.Display,
  plan: CapturePlan,
  deps: CaptureDeps,
  withOverlays: boolean,
): HTMLCanvasElement {
  const canvas = scratchCanvas(plan.width, plan.height);
  const context = context2d(canvas);
  // Same size as last time keeps the last picture: start from nothing, as a new canvas would.
  context.clearRect(0, 0, plan.width, plan.height);
  const r = plan.region;
  const layer = display.getDefaultLayer();
  const tree = layer as unknown as LayerTree;
  if (plan.scale === 1 && tree.alpha === 255 && Object.keys(tree.children).length === 0) {
    // What flatten would draw is this one canvas: copy the region from it, once. No scaling, so
    // no smoothing: masks painted on the image cover exactly their pixels.
    context.imageSmoothingEnabled = false;
    context.drawImage(layer.getCanvas(), r.x, r.y, r.width, r.height, 0, 0, r.width, r.height);
  } else {
    // flatten() draws into a new canvas on every call, so masking it touches nothing on screen.
    const flat = display.flatten();
    // Before any scaling: smoothing blends each pixel into its neighbours, so a mask painted only
    // on the scaled image leaves a fringe of what it hides around its edge (red all round a red
    // window at scale 4). Masked first, the only thing that can blend outwards is black.
    paintMasks(
      context2d(flat),
      deps.masks,
      { x: 0, y: 0, width: flat.width, height: flat.height },
      1,
    );
    context.imageSmoothingEnabled = plan.scale !== 1;
    context.imageSmoothingQuality = 'high';
    context.drawImage(flat, r.x, r.y, r.width, r.height, 0, 0, plan.width, plan.height);
  }
  if (withOverlays) drawOverlaysOnCanvas(context, deps.overlays, r, plan.scale);
  // Again at the image's scale: over the overlays, and the pixels only partly masked at the edge.
  paintMasks(context, deps.masks, r, plan.scale);
  return canvas;
}

export async function takeScreenshot(
  args: ToolArgs<'take_screenshot'>,
  deps: CaptureDeps,
): Promise<CapturedScreenshot> {
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
  const display = deps.client.getDisplay();
  const jpeg = args.format === 'jpeg';
  const quality = jpeg ? (args.quality ?? DEFAULT_JPEG_QUALITY) / 100 : undefined;
  // Read in the same task as the copy below: the version names exactly the pixels copied.
  const version = deps.frames.pictureVersion(display);
  const key: ShotKey | undefined =
    version === undefined || args.include_overlays
      ? undefined
      : { version, ...plan, format: args.format, quality, masks: deps.masks };
  let image = key === undefined ? undefined : reusableShot(deps.frames, key);
  if (image === undefined) {
    const canvas = paintCapture(display, plan, deps, args.include_overlays);
    const blob = await toBlob(canvas, jpeg ? 'image/jpeg' : 'image/png', quality);
    image = new Uint8Array(await blob.arrayBuffer());
    if (key !== undefined) storeShot(deps.frames, key, image);
  }
  if (base64Length(image.length) > MAX_SCREENSHOT_BASE64_CHARS) {
    throw new ProtocolError(
      'invalid_parameters',
      `The screenshot is ${image.length} bytes, too large to send; capture a region, lower scale or max_dimension, or use format jpeg.`,
    );
  }
  const vp = deps.viewport;
  return new CapturedScreenshot(
    {
      width: plan.width,
      height: plan.height,
      region: plan.region,
      scale: plan.scale,
      monitor_index: plan.monitorIndex,
      display_scale: Math.min(16, Math.max(0.01, vp.scale)),
      viewport_scroll: { x: Math.max(0, Math.floor(vp.vx)), y: Math.max(0, Math.floor(vp.vy)) },
      format: args.format,
      byte_length: image.length,
      // The age of the picture as it is now: an unchanged picture is the one the last frame drew.
      ...(lastFrameAt > 0 ? { frame_age_ms: Math.max(0, capturedAt - lastFrameAt) } : {}),
    },
    image,
  );
}
