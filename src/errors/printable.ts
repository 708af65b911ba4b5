// Control characters (C0, DEL, C1), the Unicode line and paragraph separators and the bidirectional
// overrides: what can move the cursor, clear a line, forge a log line or reorder text on a terminal.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text from outside (the service's answers, a receiver's body, a captured callback) made safe for
 * a message or a text line: every control character escaped as JSON escapes it (`\r`, `\n`,
 * `\u001b`), so that a hostile answer cannot paint a line of its own into a log or a terminal.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => {
    const escaped = JSON.stringify(character).slice(1, -1);
    return escaped.length > 1 ? escaped : `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
