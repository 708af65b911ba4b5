/*
 * Keeps secrets the service echoes back out of everything an error holds. The service may quote
 * the credential key or the X-Hash in a refusal (spec 7.3: "with an explanatory message"), and
 * whatever an error holds reaches logs: `util.inspect(err)`, `JSON.stringify(err)`, pino.
 */

const REDACTED = '[redacted]';
// Short values are skipped: hiding every "1" of a message would hide nothing and garble the rest.
const MIN_REDACTED_LENGTH = 4;
// Deeper than any answer the service sends; bounds the recursion on a hostile one.
const MAX_DEPTH = 64;

/**
 * Every form in which `secrets` may appear in text: as given, in either letter case (a hex hash
 * is the same hash in capitals), and as escaped inside a JSON string or a URL.
 */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_REDACTED_LENGTH) continue;
    for (const form of [secret, secret.toLowerCase(), secret.toUpperCase(), JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) {
      forms.add(form);
    }
  }
  // Longest first, so that a secret containing another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every form of every secret replaced by `[redacted]`. */
export function redactText(text: string, forms: readonly string[]): string {
  let result = text;
  for (const form of forms) {
    if (result.includes(form)) result = result.split(form).join(REDACTED);
  }
  return result;
}

/**
 * A copy of a parsed JSON value (or any plain data) with every string, and every object key,
 * redacted. Values that hold no secret are returned as they are.
 */
export function redactValue(value: unknown, forms: readonly string[], depth = 0): unknown {
  if (forms.length === 0) return value;
  if (typeof value === 'string') return redactText(value, forms);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((entry: unknown) => redactValue(entry, forms, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    copy[redactText(key, forms)] = redactValue(entry, forms, depth + 1);
  }
  return copy;
}
