// Key combos for press_key: the grammar ("ctrl+alt+t", "Return", "shift+Tab", "ctrl++"), its
// parser, and the X11 keysym tables the viewer needs to send Guacamole `key` instructions.
// Pure data and functions, shared so the bridge rejects exactly what the viewer cannot press.

/** Modifier names accepted in a combo, in the order their keys are pressed. */
export const MODIFIERS = ['ctrl', 'alt', 'shift', 'super', 'meta'] as const;
export type Modifier = (typeof MODIFIERS)[number];

/** Keysyms pressed for each modifier (the left-hand key of each pair). */
export const MODIFIER_KEYSYMS: Readonly<Record<Modifier, number>> = {
  ctrl: 0xffe3, // Control_L
  alt: 0xffe9, // Alt_L
  shift: 0xffe1, // Shift_L
  super: 0xffeb, // Super_L
  meta: 0xffe7, // Meta_L
};

/** Spellings models commonly use for a modifier, mapped to the canonical name. */
const MODIFIER_ALIASES: Readonly<Record<string, Modifier>> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  alt: 'alt',
  shift: 'shift',
  super: 'super',
  win: 'super',
  meta: 'meta',
};

function functionKeys(): Record<string, number> {
  const table: Record<string, number> = {};
  // X11 assigns F1..F35 consecutive keysyms starting at 0xffbe; we offer F1..F24.
  for (let n = 1; n <= 24; n++) table[`F${n}`] = 0xffbe + n - 1;
  return table;
}

/** Named keys (canonical X11 keysym names) and their keysyms. */
export const KEY_NAME_KEYSYMS: Readonly<Record<string, number>> = {
  Return: 0xff0d,
  Tab: 0xff09,
  Escape: 0xff1b,
  BackSpace: 0xff08,
  Delete: 0xffff,
  Home: 0xff50,
  Left: 0xff51,
  Up: 0xff52,
  Right: 0xff53,
  Down: 0xff54,
  Page_Up: 0xff55,
  Page_Down: 0xff56,
  End: 0xff57,
  Insert: 0xff63,
  space: 0x0020,
  ...functionKeys(),
};

/**
 * Other spellings (compared case-insensitively) for the named keys, so "enter", "esc" or
 * "PageDown" work as a model would expect; every key name itself also matches in any case.
 */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  enter: 'Return',
  esc: 'Escape',
  backspace: 'BackSpace',
  del: 'Delete',
  pageup: 'Page_Up',
  pgup: 'Page_Up',
  pagedown: 'Page_Down',
  pgdn: 'Page_Down',
  ins: 'Insert',
  arrowleft: 'Left',
  arrowup: 'Up',
  arrowright: 'Right',
  arrowdown: 'Down',
};

const KEY_NAMES_LOWER: ReadonlyMap<string, string> = new Map([
  ...Object.keys(KEY_NAME_KEYSYMS).map((name) => [name.toLowerCase(), name] as const),
  ...Object.entries(KEY_ALIASES),
]);

/**
 * Keysym for one printable character: Latin-1 characters use their code point, everything else
 * the Unicode keysym range 0x01000000 + code point (as X11 defines). Returns undefined for
 * control characters and strings that are not exactly one code point.
 */
export function keysymForCharacter(char: string): number | undefined {
  const codePoints = Array.from(char);
  if (codePoints.length !== 1) return undefined;
  const cp = char.codePointAt(0);
  if (cp === undefined || isControl(cp)) return undefined;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  return 0x01000000 + cp;
}

function isControl(cp: number): boolean {
  // C0, DEL and C1 controls, plus lone surrogates, cannot be typed as a key.
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xdfff);
}

export interface KeyCombo {
  /** Canonical modifier names, in MODIFIERS order, without duplicates. */
  modifiers: Modifier[];
  /** Canonical key: an X11 name from KEY_NAME_KEYSYMS or a single character. */
  key: string;
}

export type KeyComboResult = { ok: true; combo: KeyCombo } | { ok: false; error: string };

/** Longest combo string accepted (five modifiers and the longest key name fit easily). */
export const MAX_KEY_COMBO_LENGTH = 64;

const GRAMMAR_HINT =
  'Write modifiers ctrl, alt, shift, super or meta joined by "+" before one key: a name such as Return, Tab, Escape, F5, Page_Down, space, or a single character (e.g. "ctrl+alt+t", "shift+Tab", "ctrl++").';

/**
 * Parses a combo without throwing. Segments are joined by "+" and trimmed; a trailing "+" after
 * a "+" ("ctrl++") or a lone "+" names the plus key. Modifiers and key names match in any case;
 * a single-character key keeps its case (keysyms for "T" and "t" differ).
 */
export function tryParseKeyCombo(input: string): KeyComboResult {
  if (input.length === 0) return { ok: false, error: `empty key combo. ${GRAMMAR_HINT}` };
  if (input.length > MAX_KEY_COMBO_LENGTH) {
    return { ok: false, error: `key combo is longer than ${MAX_KEY_COMBO_LENGTH} characters` };
  }
  let parts: string[];
  if (input.trim() === '+') parts = ['+'];
  else if (input.endsWith('++')) parts = [...input.slice(0, -2).split('+'), '+'];
  else parts = input.split('+');

  const keyPart = parts.pop() ?? '';
  const modifiers: Modifier[] = [];
  for (const raw of parts) {
    const name = raw.trim().toLowerCase();
    const modifier = MODIFIER_ALIASES[name];
    if (modifier === undefined) {
      const what = name === '' ? 'an empty part' : `"${raw.trim()}"`;
      return { ok: false, error: `${what} is not a modifier in "${input}". ${GRAMMAR_HINT}` };
    }
    if (modifiers.includes(modifier)) {
      return { ok: false, error: `modifier "${modifier}" appears twice in "${input}"` };
    }
    modifiers.push(modifier);
  }
  modifiers.sort((a, b) => MODIFIERS.indexOf(a) - MODIFIERS.indexOf(b));

  const keyText = keyPart === '+' ? '+' : keyPart.trim();
  if (keyText === '') {
    const why = keyPart.length > 0 ? ' (use "space" for the space bar)' : '';
    return { ok: false, error: `"${input}" has no key after the modifiers${why}. ${GRAMMAR_HINT}` };
  }
  const named = KEY_NAMES_LOWER.get(keyText.toLowerCase());
  if (named !== undefined) return { ok: true, combo: { modifiers, key: named } };
  if (keysymForCharacter(keyText) !== undefined) {
    return { ok: true, combo: { modifiers, key: keyText } };
  }
  if (MODIFIER_ALIASES[keyText.toLowerCase()] !== undefined) {
    return { ok: false, error: `"${input}" ends with a modifier; add the key to press after it` };
  }
  return { ok: false, error: `unknown key "${keyText}" in "${input}". ${GRAMMAR_HINT}` };
}

/** Thrown by parseKeyCombo; the message says what is wrong and how to write a combo. */
export class KeyComboError extends Error {
  override readonly name = 'KeyComboError';
}

/** Parses a combo such as "ctrl+alt+t" into canonical modifiers and key; throws KeyComboError. */
export function parseKeyCombo(input: string): KeyCombo {
  const result = tryParseKeyCombo(input);
  if (!result.ok) throw new KeyComboError(result.error);
  return result.combo;
}

/** Keysym of a canonical key from a parsed combo (named key or single character). */
export function keysymForKey(key: string): number | undefined {
  return KEY_NAME_KEYSYMS[key] ?? keysymForCharacter(key);
}

/**
 * The keysyms to press for a combo, modifiers first then the key; the viewer presses them in
 * this order and releases them in reverse. This is also what press_key returns as `keysyms`.
 */
export function comboKeysyms(combo: KeyCombo): number[] {
  const key = keysymForKey(combo.key);
  if (key === undefined) throw new KeyComboError(`no keysym for key "${combo.key}"`);
  return [...combo.modifiers.map((m) => MODIFIER_KEYSYMS[m]), key];
}

/** Longest text type_text accepts, in UTF-16 code units (string length). */
export const MAX_TYPE_TEXT_LENGTH = 10_000;

/**
 * Keysyms to type a text one key per entry: "\n", "\r" and "\r\n" become Return, "\t" Tab,
 * other characters their character keysym. Returns the offending index for a character that
 * cannot be typed (other control characters), so the caller can name it.
 */
export function textKeysyms(
  text: string,
): { ok: true; keysyms: number[] } | { ok: false; index: number; codePoint: number } {
  const keysyms: number[] = [];
  let index = 0;
  let previous = '';
  for (const char of text) {
    if (char === '\n' && previous === '\r') {
      // "\r\n" is one line break: Return was already pressed for the "\r".
    } else if (char === '\n' || char === '\r') keysyms.push(KEY_NAME_KEYSYMS.Return ?? 0xff0d);
    else if (char === '\t') keysyms.push(KEY_NAME_KEYSYMS.Tab ?? 0xff09);
    else {
      const keysym = keysymForCharacter(char);
      if (keysym === undefined) return { ok: false, index, codePoint: char.codePointAt(0) ?? 0 };
      keysyms.push(keysym);
    }
    previous = char;
    index += char.length;
  }
  return { ok: true, keysyms };
}
