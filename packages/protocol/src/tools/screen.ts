// Screen tools: take_screenshot (metadata result + base64 image in the viewer's result),
// get_display_info, wait_for_screen and set_screenshot_frequency (with its interval clamp).
import { z } from 'zod';
import { Coordinate, InputRect, MonitorIndex, Rect, Size } from '../common.js';
import { SLACK_MS, defineTool } from './define.js';

/** Screenshots flatten, crop, scale, mask and encode a whole desktop. */
export const SCREENSHOT_MS = 15_000;
/** Largest take_screenshot scale: enlarging helps a model read small text. */
export const MAX_SCREENSHOT_SCALE = 4;
/** Longest image side take_screenshot produces; a larger scale is reduced to fit. */
export const MAX_IMAGE_DIMENSION = 8192;

export const IMAGE_FORMATS = ['png', 'jpeg'] as const;
export const ImageFormat = z.enum(IMAGE_FORMATS);

export const TakeScreenshotInput = z
  .strictObject({
    region: InputRect.optional().describe(
      'Part to capture, {x, y, width, height} in pixels (desktop, or monitor-relative with monitor_index). Omit to capture a monitor (monitor_index) or the whole desktop.',
    ),
    full_screen: z
      .boolean()
      .optional()
      .describe(
        'Default true: with no region and no monitor_index, capture the whole desktop (all monitors). false: capture the part of the desktop the person currently sees in their viewer. Cannot be true together with region or monitor_index.',
      ),
    scale: z
      .number()
      .min(0.1)
      .max(MAX_SCREENSHOT_SCALE)
      .default(1)
      .describe(
        `Scale factor 0.1..${MAX_SCREENSHOT_SCALE} applied to the image (default 1 = one image pixel per desktop pixel; above 1 enlarges small text). The longer side is capped at ${MAX_IMAGE_DIMENSION} pixels.`,
      ),
    wait_for_stable_ms: z
      .number()
      .min(0)
      .max(10_000)
      .transform(Math.round)
      .default(0)
      .describe(
        'Wait until the screen has not changed for this many milliseconds before capturing (0 = capture now). Useful right after an action that animates.',
      ),
    format: ImageFormat.default('png').describe(
      'Image format: png (default, exact) or jpeg (smaller).',
    ),
    quality: z
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe('JPEG quality 1..100 (default 85); ignored for png.'),
    max_dimension: z
      .int()
      .min(64)
      .max(8192)
      .optional()
      .describe('Cap on the longer image side in pixels; the image is scaled down further to fit.'),
    include_overlays: z
      .boolean()
      .default(false)
      .describe('Draw the current overlays into the image (default false: the desktop as it is).'),
    monitor_index: MonitorIndex.optional(),
  })
  .refine((v) => !(v.full_screen === true && v.region !== undefined), {
    error: 'give either region or full_screen=true, not both',
    path: ['full_screen'],
  })
  .refine((v) => !(v.full_screen === true && v.monitor_index !== undefined), {
    error: 'give either monitor_index or full_screen=true, not both',
    path: ['full_screen'],
  });
export type TakeScreenshotInput = z.input<typeof TakeScreenshotInput>;

export const TakeScreenshotResult = z.strictObject({
  width: Size.describe('Image width in image pixels.'),
  height: Size.describe('Image height in image pixels.'),
  region: Rect.describe('Area captured, in desktop pixels.'),
  scale: z
    .number()
    .min(0.001)
    .max(MAX_SCREENSHOT_SCALE)
    .describe(
      'Image pixels per desktop pixel actually applied (after max_dimension). Desktop x = region.x + image x / scale.',
    ),
  monitor_index: MonitorIndex.describe(
    "The monitor captured: the one that holds the region's centre.",
  ),
  display_scale: z
    .number()
    .min(0.01)
    .max(16)
    .describe("Zoom of the person's viewer: CSS pixels per desktop pixel."),
  viewport_scroll: z
    .strictObject({
      x: Coordinate.describe('Desktop x at the left edge of the viewer.'),
      y: Coordinate.describe('Desktop y at the top edge of the viewer.'),
    })
    .describe("Desktop pixel shown at the top-left corner of the person's viewer."),
  format: ImageFormat.describe('Encoding of the image content.'),
  byte_length: z
    .int()
    .min(1)
    .max(16 * 1024 * 1024)
    .describe('Size of the encoded image in bytes.'),
  frame_age_ms: z
    .int()
    .min(0)
    .optional()
    .describe(
      'Milliseconds since the viewer last drew a frame from the desktop server when the image was taken. Behind the embedded gateway a still desktop still sends a frame every ~2 s, so a large value means the picture may be out of date; behind Apache guacd frames come only with changes.',
    ),
});
export type TakeScreenshotResult = z.infer<typeof TakeScreenshotResult>;

/** Base64 characters allowed for one screenshot: leaves room in a 16 MiB viewer message. */
export const MAX_SCREENSHOT_BASE64_CHARS = 16 * 1024 * 1024 - 64 * 1024;

/**
 * What the viewer returns for take_screenshot: the metadata plus the encoded image as base64.
 * The bridge moves `data` into an MCP image content block and keeps the rest as structured content.
 */
export const TakeScreenshotViewerResult = TakeScreenshotResult.extend({
  data: z
    .base64()
    .min(1)
    .max(MAX_SCREENSHOT_BASE64_CHARS)
    .describe('The encoded image, base64 without a data: prefix.'),
});
export type TakeScreenshotViewerResult = z.infer<typeof TakeScreenshotViewerResult>;

export const takeScreenshot = defineTool({
  name: 'take_screenshot',
  title: 'Take screenshot',
  description:
    "Captures the remote desktop (without overlays unless include_overlays is true); by default the whole desktop, or a region, or one monitor with monitor_index. The image (the spec's image_base64) is returned as an MCP image content block, never repeated as text; the structured result gives its metadata: image width/height, the captured region in desktop pixels, the scale and the monitor_index, so a point in the image maps to desktop pixels as region.x + x / scale. Areas the person marked private are black. Use scale/max_dimension/jpeg to keep images small. Use it before acting and after, to check the effect.",
  input: TakeScreenshotInput,
  result: TakeScreenshotResult,
  viewerResult: TakeScreenshotViewerResult,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  kind: 'screen',
  runsIn: 'viewer',
  policyClass: 'free',
  permission: 'screenshots',
  budgetMs: (a) => SCREENSHOT_MS + a.wait_for_stable_ms,
  summarize: (_a, r) =>
    `Screenshot ${r.width}x${r.height} ${r.format} of desktop region ${r.region.x},${r.region.y} ${r.region.width}x${r.region.height} (monitor ${r.monitor_index}) at scale ${r.scale} (desktop x = ${r.region.x} + image x / ${r.scale}).`,
});

export const MAX_MONITORS = 64;

export const Monitor = z.strictObject({
  index: MonitorIndex.describe('Index to pass as monitor_index.'),
  x: Coordinate.describe('Left edge in desktop pixels.'),
  y: Coordinate.describe('Top edge in desktop pixels.'),
  width: Size.describe('Width in desktop pixels.'),
  height: Size.describe('Height in desktop pixels.'),
  scale: z.number().min(0.25).max(8).describe('Scale factor of the monitor (1 = 96 DPI).'),
  label: z.string().max(100).optional().describe('Name from the person\'s layout, e.g. "left".'),
});
export type Monitor = z.infer<typeof Monitor>;

export const GetDisplayInfoInput = z.strictObject({});
export const GetDisplayInfoResult = z.strictObject({
  desktop: z
    .strictObject({
      width: Size.describe('Desktop width in pixels.'),
      height: Size.describe('Desktop height in pixels.'),
    })
    .describe('Size of the whole remote desktop in pixels; all coordinates live inside it.'),
  monitors: z
    .array(Monitor)
    .min(1)
    .max(MAX_MONITORS)
    .describe('Monitors as rectangles of the desktop; a single-screen desktop has one.'),
});
export type GetDisplayInfoResult = z.infer<typeof GetDisplayInfoResult>;

export const getDisplayInfo = defineTool({
  name: 'get_display_info',
  title: 'Get display info',
  description:
    'Returns the remote desktop size and its monitors (index, position, size in desktop pixels, scale, label). Call it first to learn the coordinate space every other tool uses, and which monitor_index values exist.',
  input: GetDisplayInfoInput,
  result: GetDisplayInfoResult,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'screen',
  runsIn: 'viewer',
  policyClass: 'free',
  summarize: (_a, r) =>
    `Desktop ${r.desktop.width}x${r.desktop.height}; monitors: ${r.monitors
      .map(
        (m) =>
          `#${m.index} ${m.width}x${m.height} at ${m.x},${m.y}${m.label === undefined ? '' : ` (${m.label})`}`,
      )
      .join('; ')}.`,
});

export const WaitForScreenInput = z.strictObject({
  until: z
    .enum(['changed', 'stable'])
    .describe(
      'changed: return as soon as the screen (or region) differs from when the call started. stable: return once it has not changed for stable_ms.',
    ),
  region: InputRect.optional().describe(
    'Only watch this area (desktop pixels, or monitor-relative with monitor_index); default the whole desktop, or the monitor.',
  ),
  monitor_index: MonitorIndex.optional(),
  timeout_ms: z
    .number()
    .min(100)
    .max(60_000)
    .transform(Math.round)
    .default(5000)
    .describe('Give up after this many milliseconds (100..60000, default 5000).'),
  stable_ms: z
    .number()
    .min(50)
    .max(10_000)
    .transform(Math.round)
    .default(500)
    .describe('For until=stable: how long the screen must stay unchanged (default 500).'),
});
export const WaitForScreenResult = z.strictObject({
  satisfied: z.boolean().describe('True when the condition was met; false on timeout.'),
  waited_ms: z.int().min(0).max(120_000).describe('How long the call waited.'),
});

export const waitForScreen = defineTool({
  name: 'wait_for_screen',
  title: 'Wait for screen',
  description:
    'Waits until the screen changes, or until it stops changing, then returns. Use it after a click or key press to wait for a window to open or a page to finish loading before taking a screenshot. A timeout is not an error: satisfied is false. When frames stop arriving at all (the link to the desktop went silent) it fails with viewer_unavailable and retry_after_ms instead of calling the silence stable.',
  input: WaitForScreenInput,
  result: WaitForScreenResult,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  kind: 'screen',
  runsIn: 'viewer',
  policyClass: 'free',
  permission: 'screenshots',
  budgetMs: (a) => a.timeout_ms + SLACK_MS,
  summarize: (a, r) =>
    r.satisfied
      ? `The screen became ${a.until} after ${r.waited_ms} ms.`
      : `Timed out after ${r.waited_ms} ms without the screen becoming ${a.until}.`,
});

/** Background-capture interval bounds; out-of-range requests are clamped, not rejected. */
export const MIN_SCREENSHOT_INTERVAL_MS = 250;
export const MAX_SCREENSHOT_INTERVAL_MS = 3_600_000;
export const DEFAULT_SCREENSHOT_INTERVAL_MS = 1000;

/** The interval the bridge/viewer actually use for a requested one (see set_screenshot_frequency). */
export function clampScreenshotInterval(requestedMs: number | undefined): number {
  const ms = requestedMs ?? DEFAULT_SCREENSHOT_INTERVAL_MS;
  return Math.min(MAX_SCREENSHOT_INTERVAL_MS, Math.max(MIN_SCREENSHOT_INTERVAL_MS, Math.round(ms)));
}

export const SetScreenshotFrequencyInput = z.strictObject({
  mode: z
    .enum(['manual', 'periodic', 'on_change'])
    .describe(
      'manual: capture only when take_screenshot is called. periodic: capture every interval_ms. on_change: check every interval_ms and capture when the screen changed.',
    ),
  interval_ms: z
    .number()
    .min(0)
    .max(86_400_000)
    .transform(Math.round)
    .optional()
    .describe(
      'Milliseconds between background captures or checks; clamped to 250..3600000 (default 1000). The applied value is returned.',
    ),
  only_on_change: z
    .boolean()
    .default(false)
    .describe('For periodic: skip captures identical to the previous one.'),
});
export const SetScreenshotFrequencyResult = z.strictObject({
  ok: z.boolean().describe('True when the setting was applied.'),
  applied_interval_ms: z
    .int()
    .min(MIN_SCREENSHOT_INTERVAL_MS)
    .max(MAX_SCREENSHOT_INTERVAL_MS)
    .describe('Interval in use after clamping.'),
});

export const setScreenshotFrequency = defineTool({
  name: 'set_screenshot_frequency',
  title: 'Set screenshot frequency',
  description:
    'Controls background screen capture in the viewer, which feeds screen_change events (subscribe_events) and change detection. manual turns it off; periodic and on_change run every interval_ms, clamped to 250..3600000 ms. Returns the interval actually applied.',
  input: SetScreenshotFrequencyInput,
  result: SetScreenshotFrequencyResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'screen',
  runsIn: 'bridge',
  policyClass: 'free',
  permission: 'screenshots',
  summarize: (a, r) =>
    a.mode === 'manual'
      ? 'Background screenshots are off; use take_screenshot.'
      : `${a.mode === 'on_change' ? 'Checking for changes' : 'Capturing'} every ${r.applied_interval_ms} ms; read or subscribe to screenshot://latest for the latest capture.`,
});
