// The approval panel from the keyboard (issue P9 item 5): the menu chord puts the keyboard on the
// panel's first answer (display/hotkeys.ts menuChordTarget), and once the person has answered,
// the keyboard goes back where it came from — the desktop area, or the control on the page it
// left — and the menu is closed, so focus never drops to <body> with the menu stranded open.
// Also the one rule for Escape, which the panel and the menu both listen for: exactly one of
// them acts on each press, and never on an Escape typed into the desktop.
//
// Answering itself stays with the buttons: Enter (or Space) on a focused button is the browser's
// own activation, which yields a trusted click only for a real key press, and Approve ignores
// untrusted clicks (ConfirmDialog's `approving`). Nothing here answers.
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import { menuChordTarget } from '../display/hotkeys.js';
import { viewerPrefsStore } from '../store/viewerPrefs.js';

/** On the approval panel's root. */
export const APPROVAL_PANEL_ATTRIBUTE = 'data-approval-panel';
/** On Deny and Approve; the first one in reading order (Deny) gets the keyboard. */
export const APPROVAL_ANSWER_ATTRIBUTE = 'data-approval-answer';
/** On the root of the approvals waiting on the person's other desktops, in a viewer. */
export const OTHER_DESKTOPS_ATTRIBUTE = 'data-other-desktops-approvals';
/** On the client menu's root (menu/ClientMenu.tsx). */
export const CLIENT_MENU_ATTRIBUTE = 'data-client-menu';

/** Where a key press happens, as far as these rules care. */
export type KeyboardPlace = 'desktop' | 'approval' | 'menu' | 'page';

export function keyboardPlace(target: EventTarget | null): KeyboardPlace {
  if (!(target instanceof Element)) return 'page';
  // The desktop first: the panel and the menu are siblings of the display, never inside it.
  if (target.closest(`[${DISPLAY_AREA_ATTRIBUTE}]`) !== null) return 'desktop';
  if (target.closest(`[${APPROVAL_PANEL_ATTRIBUTE}]`) !== null) return 'approval';
  if (target.closest(`[${CLIENT_MENU_ATTRIBUTE}]`) !== null) return 'menu';
  return 'page';
}

export type EscapeAction = 'deny' | 'closeMenu' | 'none';

/**
 * What Escape does where it was pressed. On the desktop it is the desktop's key. In the panel it
 * denies; in the menu it closes the menu; anywhere else on the page (the status bar, or <body>
 * after something vanished) it closes the menu when that is open — the harmless choice — and
 * otherwise denies what waits.
 */
export function escapeAction(
  place: KeyboardPlace,
  state: { menuOpen: boolean; approvalWaiting: boolean },
): EscapeAction {
  switch (place) {
    case 'desktop':
      return 'none';
    case 'approval':
      return state.approvalWaiting ? 'deny' : 'none';
    case 'menu':
      return state.menuOpen ? 'closeMenu' : 'none';
    case 'page':
      if (state.menuOpen) return 'closeMenu';
      return state.approvalWaiting ? 'deny' : 'none';
    default: {
      const never: never = place;
      return never;
    }
  }
}

/**
 * Where the keyboard goes once the panel no longer needs it: back to the control it came from
 * when that is still on the page (and not in a menu that is closing), else the desktop area.
 */
export function returnTarget(
  cameFrom: KeyboardPlace | null,
  menuStaysOpen: boolean,
): 'cameFrom' | 'desktop' {
  if (cameFrom === 'page') return 'cameFrom';
  if (cameFrom === 'menu' && menuStaysOpen) return 'cameFrom';
  return 'desktop';
}

// The control the keyboard was on before it came into the panel (null: the desktop or nothing).
let cameFrom: HTMLElement | null = null;

/** The panel got the keyboard; `from` is where it was (a focusin's relatedTarget). */
export function approvalFocused(from: EventTarget | null): void {
  if (from instanceof HTMLElement && keyboardPlace(from) === 'approval') return;
  cameFrom = from instanceof HTMLElement && from !== from.ownerDocument.body ? from : null;
}

/**
 * The menu chord: while an approval is shown, put the keyboard on its first answer and return
 * true; false when the chord should open or close the menu instead.
 */
export function focusFirstAnswer(doc: Document): boolean {
  const panel = doc.querySelector(`[${APPROVAL_PANEL_ATTRIBUTE}]`);
  // This desktop's own question first; else the oldest waiting on another of the person's
  // desktops (fleet/OtherDesktopsApprovals.tsx), which the desktop area's Tab never reaches.
  const others = panel === null ? doc.querySelector(`[${OTHER_DESKTOPS_ATTRIBUTE}]`) : null;
  const asking = panel ?? others;
  const inPanel = asking !== null && asking.contains(doc.activeElement);
  if (menuChordTarget(asking !== null, inPanel) !== 'approval') return false;
  const first = asking?.querySelector<HTMLElement>(`[${APPROVAL_ANSWER_ATTRIBUTE}]`);
  if (first === null || first === undefined) return false;
  approvalFocused(doc.activeElement);
  first.focus({ preventScroll: true });
  return true;
}

/** Give the keyboard back (see returnTarget); the menu stays as it is. */
export function returnKeyboard(doc: Document): void {
  const from = cameFrom?.isConnected === true ? cameFrom : null;
  cameFrom = null;
  const menuOpen = viewerPrefsStore.getState().menuOpen;
  const target =
    returnTarget(from === null ? null : keyboardPlace(from), menuOpen) === 'cameFrom'
      ? from
      : doc.querySelector<HTMLElement>(`[${DISPLAY_AREA_ATTRIBUTE}]`);
  target?.focus({ preventScroll: true });
}

/** The person answered (any answer, by key or click): close the menu, give the keyboard back. */
export function personAnswered(doc: Document): void {
  viewerPrefsStore.getState().menuToggled(false);
  returnKeyboard(doc);
}
