/*
 * Text in the charset a Content-Type declares: answers (transport.ts) and callbacks
 * (webhooks/body.ts) read their bytes through these, each with its own rule for a body that does
 * not decode as declared. No Node built-in: this runs on every runtime.
 */

// `charset=latin5`, `charset="ISO-8859-9"`, in any letter case, among other parameters.
const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]+)/i;

/** The charset label a Content-Type declares, as written; `undefined` when it declares none. */
export function declaredCharset(contentType: string | null | undefined): string | undefined {
  if (contentType === null || contentType === undefined) return undefined;
  return CHARSET_PARAMETER.exec(contentType)?.[1];
}

/**
 * A decoder of `label`, or `undefined` when this runtime does not know it (an unknown label, or
 * a legacy encoding a runtime built without it lacks). `fatal` refuses bytes the charset does
 * not map instead of writing U+FFFD.
 */
export function decoderOf(label: string, fatal = false): TextDecoder | undefined {
  try {
    return new TextDecoder(label, { fatal });
  } catch {
    return undefined;
  }
}

// WHATWG's windows-1252 for 0x80..0x9f; every other byte is the code point of its value. The five
// bytes the code page leaves unassigned read as the C1 control of that value, as the standard says.
const C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/**
 * Bytes as windows-1252, by hand so that no runtime can lack it or read it otherwise (Node 20's
 * TextDecoder reads 0x80..0x9f as ISO-8859-1): every byte maps to its own character, so nothing
 * is lost or replaced and the bytes can be told back from the text.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  const chars = new Array<string>(bytes.byteLength);
  for (let i = 0; i < bytes.byteLength; i++) {
    const byte = bytes[i] ?? 0;
    chars[i] = byte >= 0x80 && byte < 0xa0 ? (C1[byte - 0x80] ?? '') : String.fromCharCode(byte);
  }
  return chars.join('');
}
