// The input sink: a hidden text field that holds the keyboard whenever the desktop area does, so
// text that only ever arrives in an editable field (an IME's composition, dead keys, a phone
// keyboard, `insertText`) arrives at all — a focused <div> gets keys, never text. It is the idea
// of Guacamole.InputSink, placed differently: that one sits in <body> and pulls focus to itself
// on any key pressed on the page, while here the page's own controls keep their keys.
//
// The field lives in a shadow root of the area that delegates focus: focusing the area (a click,
// Tab, `focusDesktop()`) focuses the field, yet `document.activeElement`, `:focus` and every
// event's target outside the area are still the area itself, so the status bar, the hotkeys,
// the approval panel and the take-over watch, which all ask "is it the desktop?", see no change.
import { typedText } from './typedText.js';

const FIELD_STYLE: Partial<CSSStyleDeclaration> = {
  // Fixed, so focusing it never scrolls a 1:1 desktop back to its corner.
  position: 'fixed',
  left: '0',
  bottom: '0',
  width: '1px',
  height: '1px',
  margin: '0',
  padding: '0',
  border: '0',
  outline: 'none',
  resize: 'none',
  overflow: 'hidden',
  opacity: '0',
  pointerEvents: 'none',
};

const fields = new WeakMap<HTMLElement, HTMLTextAreaElement>();

/** The sink of `area`, made once per element (a shadow root cannot be taken back). */
function fieldOf(area: HTMLElement): HTMLTextAreaElement {
  const existing = fields.get(area);
  if (existing) return existing;
  const root = area.attachShadow({ mode: 'open', delegatesFocus: true });
  const field = document.createElement('textarea');
  Object.assign(field.style, FIELD_STYLE);
  field.setAttribute('aria-label', area.getAttribute('aria-label') ?? 'Remote desktop');
  // A field that is always empty would otherwise have every letter capitalised or "corrected"
  // by phone keyboards before the desktop gets it.
  for (const [name, value] of [
    ['autocapitalize', 'off'],
    ['autocomplete', 'off'],
    ['autocorrect', 'off'],
    ['spellcheck', 'false'],
  ] as const)
    field.setAttribute(name, value);
  // The area's own content (the display stage) renders through the slot.
  root.append(field, document.createElement('slot'));
  fields.set(area, field);
  return field;
}

/**
 * Gives `area` its sink and calls `onText` with each piece of text typed into it, once. The
 * field is emptied after each piece (never mid-composition, which would cancel the IME), so a
 * phone keyboard has no old word to re-compose. Returns the undo (the sink itself stays).
 */
export function listenForText(area: HTMLElement, onText: (text: string) => void): () => void {
  const field = fieldOf(area);
  // Guacamole.Keyboard also listens for input and compositionend on the area, and types
  // whichever comes first while ignoring the other kind from then on: one IME word after an
  // `insertText` would be lost. These events end here; typedText() decides.
  const input = (event: Event) => {
    event.stopPropagation();
    const e = event as InputEvent;
    if (!e.isComposing) field.value = '';
    const text = typedText({
      type: 'input',
      inputType: e.inputType,
      data: e.data,
      isComposing: e.isComposing,
    });
    if (text !== null) onText(text);
  };
  const compositionEnd = (event: Event) => {
    event.stopPropagation();
    field.value = '';
    const text = typedText({ type: 'compositionend', data: (event as CompositionEvent).data });
    if (text !== null) onText(text);
  };
  // Tab order follows the area: while something (the teach layer) takes the area out of it,
  // the field inside must not stay reachable.
  const syncTabIndex = () => {
    field.tabIndex = area.tabIndex;
  };
  syncTabIndex();
  const tabIndexWatch = new MutationObserver(syncTabIndex);
  tabIndexWatch.observe(area, { attributes: true, attributeFilter: ['tabindex'] });
  field.addEventListener('input', input);
  field.addEventListener('compositionend', compositionEnd);
  return () => {
    tabIndexWatch.disconnect();
    field.removeEventListener('input', input);
    field.removeEventListener('compositionend', compositionEnd);
  };
}
