// The person's physical screens through the Window Management API (window.getScreenDetails, in
// Chromium-based browsers, after the person grants "window management"): their sizes and labels
// for the layout, and where each one is (Suggest keeps their arrangement; "Open windows" puts a
// viewer on each). Elsewhere, or when the person says no, the page asks for the sizes by hand.

/** What the page uses of a ScreenDetailed (the API's types are not in TypeScript's DOM lib). */
export interface DetailedScreen {
  width: number;
  height: number;
  /** Where the screen is among the others (CSS pixels of the whole screen space). */
  left: number;
  top: number;
  availLeft: number;
  availTop: number;
  availWidth: number;
  availHeight: number;
  label: string;
  isPrimary: boolean;
}

interface ScreenDetailsApi {
  getScreenDetails?: () => Promise<{ screens: readonly DetailedScreen[] }>;
}

export type ScreensOutcome =
  | { ok: true; screens: DetailedScreen[] }
  | { ok: false; reason: 'unsupported' | 'denied' | 'failed'; message: string };

export function screenDetailsSupported(): boolean {
  return typeof (window as ScreenDetailsApi).getScreenDetails === 'function';
}

/** Left to right, then top to bottom: the order the suggested layout puts them in. */
function byPosition(a: DetailedScreen, b: DetailedScreen): number {
  return a.availLeft - b.availLeft || a.availTop - b.availTop;
}

/** Asks the browser for the screens (it prompts the person the first time). */
export async function detectScreens(): Promise<ScreensOutcome> {
  const api = window as ScreenDetailsApi;
  if (typeof api.getScreenDetails !== 'function') {
    return {
      ok: false,
      reason: 'unsupported',
      message:
        'This browser cannot list your screens (the Window Management API is in Chrome and Edge). Enter each screen’s size below.',
    };
  }
  try {
    const details = await api.getScreenDetails();
    // Copied out: the live objects change when screens do.
    const screens = details.screens.map((s) => ({
      width: s.width,
      height: s.height,
      left: s.left,
      top: s.top,
      availLeft: s.availLeft,
      availTop: s.availTop,
      availWidth: s.availWidth,
      availHeight: s.availHeight,
      label: s.label,
      isPrimary: s.isPrimary,
    }));
    return { ok: true, screens: screens.sort(byPosition) };
  } catch (thrown: unknown) {
    const denied = thrown instanceof DOMException && thrown.name === 'NotAllowedError';
    return {
      ok: false,
      reason: denied ? 'denied' : 'failed',
      message: denied
        ? 'The browser did not allow this page to see your screens. Allow “Window management” in the site settings (the icon left of the address) and try again, or enter each screen’s size below.'
        : `The browser could not list your screens (${thrown instanceof Error ? thrown.message : String(thrown)}). Enter each screen’s size below.`,
    };
  }
}

/**
 * The screen a monitor's window belongs on: the one with the monitor's label (labels come from
 * the screens when detected), else the one at its position in the list.
 */
export function screenFor<S extends { label: string }>(
  screens: readonly S[],
  monitor: { label: string },
  index: number,
): S | undefined {
  const label = monitor.label.trim();
  return (label === '' ? undefined : screens.find((s) => s.label === label)) ?? screens[index];
}
