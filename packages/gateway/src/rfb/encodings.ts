// RFB encoding numbers this client understands, and the order it offers them in.
export const Encoding = {
  Raw: 0,
  CopyRect: 1,
  ZRLE: 16,
  DesktopSize: -223,
  LastRect: -224,
  Cursor: -239,
  ExtendedDesktopSize: -308,
  /** 0xC0A1E5CE as a signed 32-bit integer, as it travels in SetEncodings. */
  ExtendedClipboard: 0xc0a1e5ce | 0,
} as const;

/** Offered in SetEncodings, most preferred first. */
export const DEFAULT_ENCODINGS: readonly number[] = [
  Encoding.ZRLE,
  Encoding.CopyRect,
  Encoding.Raw,
  Encoding.ExtendedDesktopSize,
  Encoding.DesktopSize,
  Encoding.Cursor,
  Encoding.LastRect,
  Encoding.ExtendedClipboard,
];
