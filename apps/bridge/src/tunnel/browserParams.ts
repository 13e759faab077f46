// What a browser may say when it opens the tunnel: its screen size and dpi, nothing else.
// The query string is parsed with zod; out-of-range numbers are clamped (a huge window should
// still connect), non-numbers are rejected with a message that names the field. Every other
// key (hostname, port, password, ...) is ignored on purpose: connection parameters are server
// configuration only.
import { z } from 'zod';

export const SCREEN_LIMITS = {
  width: { min: 64, max: 8192, fallback: 1024 },
  height: { min: 64, max: 8192, fallback: 768 },
  dpi: { min: 48, max: 480, fallback: 96 },
} as const;

function clampedInt(limits: { min: number; max: number; fallback: number }) {
  return z
    .string()
    .trim()
    .regex(/^\d{1,6}(\.\d+)?$/, 'must be a positive number')
    .optional()
    .transform((text) => {
      if (text === undefined) return limits.fallback;
      return Math.min(limits.max, Math.max(limits.min, Math.round(Number(text))));
    });
}

export const browserParamsSchema = z.object({
  width: clampedInt(SCREEN_LIMITS.width),
  height: clampedInt(SCREEN_LIMITS.height),
  dpi: clampedInt(SCREEN_LIMITS.dpi),
});
export type BrowserParams = z.output<typeof browserParamsSchema>;

export type BrowserParamsResult =
  { ok: true; params: BrowserParams } | { ok: false; message: string };

/** Parses the query of the upgrade request URL (e.g. `/tunnel?width=1280&height=800&dpi=96`). */
export function parseBrowserParams(search: URLSearchParams): BrowserParamsResult {
  const pick = (key: string) => search.get(key) ?? undefined;
  const result = browserParamsSchema.safeParse({
    width: pick('width'),
    height: pick('height'),
    dpi: pick('dpi'),
  });
  if (result.success) return { ok: true, params: result.data };
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') ?? 'query';
  return { ok: false, message: `Tunnel parameter "${field}" ${issue?.message ?? 'is invalid'}` };
}
