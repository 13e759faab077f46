// The remote desktop's size is decided by the bridge, never by a browser window: the operator's
// --desktop-size (OC_DESKTOP_SIZE) wins; otherwise the person's saved layout, through an injected
// provider; otherwise the desktop keeps the size it has. This module holds the size type, its
// limits and parsing, and the provider's shape.
import { z } from 'zod';
import { ConfigError } from '../errors.js';

export interface DesktopSize {
  width: number;
  height: number;
}

/**
 * The person's wanted desktop size (e.g. the bounding box of their saved monitor layout), or
 * undefined to keep the desktop's current size. Called when a person's connection opens.
 */
export type DesktopSizeProvider = (desktopId: string) => Promise<DesktopSize | undefined>;

/**
 * guacd's RDP Display Update accepts 200–8192 pixels per side (GUAC_RDP_DISP_MIN_SIZE / _MAX_SIZE)
 * and its VNC resize at most 8192; one range for every path.
 */
export const DESKTOP_SIZE_LIMITS = { min: 200, max: 8192 } as const;

/**
 * The size an RDP session is opened at when nothing is decided and the bridge has not seen the
 * desktop yet (an RDP connection must name a size); the local desktop's default too.
 */
export const FALLBACK_DESKTOP_SIZE: DesktopSize = { width: 1280, height: 800 };

const side = z.number().int().min(DESKTOP_SIZE_LIMITS.min).max(DESKTOP_SIZE_LIMITS.max);
export const desktopSizeSchema = z.strictObject({ width: side, height: side });

/** Parses `WIDTHxHEIGHT` (e.g. `3840x1080`); `what` names the flag or variable in the error. */
export function parseDesktopSize(text: string, what: string): DesktopSize {
  const match = /^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$/.exec(text);
  const parsed = desktopSizeSchema.safeParse({
    width: Number(match?.[1]),
    height: Number(match?.[2]),
  });
  if (match === null || !parsed.success) {
    throw new ConfigError(
      `${what} expects WIDTHxHEIGHT with each side from ${DESKTOP_SIZE_LIMITS.min} to ${DESKTOP_SIZE_LIMITS.max} pixels (for example 1920x1080), got "${text}".`,
    );
  }
  return parsed.data;
}

export function sameSize(a: DesktopSize | undefined, b: DesktopSize | undefined): boolean {
  return a !== undefined && b !== undefined && a.width === b.width && a.height === b.height;
}

export function describeSize(size: DesktopSize): string {
  return `${size.width}x${size.height}`;
}
