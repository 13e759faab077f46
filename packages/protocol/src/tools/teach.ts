// Teach mode: request_annotation asks the person to point things out on the desktop — the
// reverse of draw_overlay. The control viewer shows the prompt; the person draws rectangles or
// clicks points (each with an optional note) and presses Done; the tool returns them in desktop
// pixels with the monitor that holds each. Never governed by the mode: it asks the person, who
// decides what to show (and areas they marked private cannot be annotated).
import { z } from 'zod';
import { Coordinate, InputRect, MonitorIndex, Size } from '../common.js';
import { SLACK_MS, defineTool } from './define.js';
import { Intent } from './intent.js';
import { plainText } from './textArgs.js';

export const MAX_ANNOTATION_PROMPT_CHARS = 500;
export const MAX_ANNOTATION_NOTE_CHARS = 500;
export const MAX_ANNOTATIONS = 50;
export const DEFAULT_ANNOTATION_TIMEOUT_MS = 120_000;
export const MAX_ANNOTATION_TIMEOUT_MS = 600_000;

export const RequestAnnotationInput = z.strictObject({
  prompt: plainText(
    z
      .string()
      .trim()
      .min(1)
      .max(MAX_ANNOTATION_PROMPT_CHARS)
      .describe(
        'What the person should point out, shown to them as plain text, e.g. "Show me the Save button and the file name field".',
      ),
    "the AI's own question to the person",
  ),
  region: InputRect.optional().describe(
    'Optional area to ask about (desktop pixels, or monitor-relative with monitor_index); it is highlighted for the person. Annotations may still lie anywhere.',
  ),
  monitor_index: MonitorIndex.optional().describe(
    'Monitor from get_display_info().monitors that region is relative to; without region, that whole monitor is highlighted. Results are always desktop pixels.',
  ),
  max_items: z
    .int()
    .min(1)
    .max(MAX_ANNOTATIONS)
    .default(10)
    .describe(`Most annotations the person may add (1..${MAX_ANNOTATIONS}, default 10).`),
  timeout_ms: z
    .number()
    .min(5_000)
    .max(MAX_ANNOTATION_TIMEOUT_MS)
    .transform(Math.round)
    .default(DEFAULT_ANNOTATION_TIMEOUT_MS)
    .describe(
      `How long to wait for the person (5000..${MAX_ANNOTATION_TIMEOUT_MS} ms, default ${DEFAULT_ANNOTATION_TIMEOUT_MS}); then whatever they drew is returned with completed=false.`,
    ),
  intent: Intent,
});

const Note = z
  .string()
  .max(MAX_ANNOTATION_NOTE_CHARS)
  .optional()
  .describe("The person's note for this item, as they typed it (plain text).");
const OnMonitor = MonitorIndex.describe('The monitor that holds the point or the centre.');

export const Annotation = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('rect').describe('A rectangle the person drew.'),
    x: Coordinate.describe('Left edge in desktop pixels.'),
    y: Coordinate.describe('Top edge in desktop pixels.'),
    width: Size.describe('Width in desktop pixels.'),
    height: Size.describe('Height in desktop pixels.'),
    note: Note,
    monitor_index: OnMonitor,
  }),
  z.strictObject({
    kind: z.literal('point').describe('A point the person clicked.'),
    x: Coordinate.describe('Desktop x.'),
    y: Coordinate.describe('Desktop y.'),
    note: Note,
    monitor_index: OnMonitor,
  }),
]);
export type Annotation = z.infer<typeof Annotation>;

export const RequestAnnotationResult = z.strictObject({
  completed: z
    .boolean()
    .describe(
      'True when the person pressed Done; false when they cancelled or the time ran out (annotations then holds what they had drawn, if anything).',
    ),
  annotations: z
    .array(Annotation)
    .max(MAX_ANNOTATIONS)
    .describe('What the person pointed out, in the order they added it, in desktop pixels.'),
  waited_ms: z
    .int()
    .min(0)
    .max(MAX_ANNOTATION_TIMEOUT_MS + 60_000)
    .describe('How long it took.'),
});
export type RequestAnnotationResult = z.infer<typeof RequestAnnotationResult>;

export const requestAnnotation = defineTool({
  name: 'request_annotation',
  title: 'Ask the person to point things out',
  description:
    "Teach mode: shows the prompt (as plain text) to the person in their viewer and lets them draw rectangles or click points on the desktop, each with an optional note, until they press Done. Returns what they pointed out in desktop pixels (integers, inside the desktop) with the monitor_index of each point or rectangle centre — the reverse of draw_overlay. Use it when you cannot find something on a screenshot or need the person to show you where to act. `region` (desktop pixels, or relative to monitor_index) is highlighted for them; monitor_index alone highlights that monitor. Waits up to timeout_ms: Done gives completed=true; Cancel gives completed=false with no annotations; when the time runs out, completed=false with what they had drawn. One request at a time: a call while another is open fails with rate_limited (ask for everything in one prompt). Areas the person made private cannot be annotated. It needs a person at a browser viewer (the bridge's headless viewer refuses with viewer_unavailable); their Stop fails the call as cancelled. Say why in `intent`: it is kept with the request in the person's action log.",
  input: RequestAnnotationInput,
  result: RequestAnnotationResult,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  kind: 'teach',
  runsIn: 'viewer',
  policyClass: 'free',
  budgetMs: (a) => a.timeout_ms + SLACK_MS,
  summarize: (_a, r) =>
    `${r.completed ? 'The person pointed out' : 'The person did not finish; they had drawn'} ${r.annotations.length} item(s)${r.annotations.length > 0 ? `: ${r.annotations.map((n) => (n.kind === 'rect' ? `rect ${n.x},${n.y} ${n.width}x${n.height}` : `point ${n.x},${n.y}`) + (n.note === undefined ? '' : ` "${n.note.slice(0, 80)}"`)).join('; ')}` : ''}.`,
});
