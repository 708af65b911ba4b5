/**
 * Keys no parsed answer or callback payload carries as its own: a body's fields are unsigned (a
 * callback's hash covers three of them), so a replay may add these, and code that copies the
 * object (`Object.assign({}, payload)`, a merge) would take a prototype from them. Callbacks'
 * reader (webhooks/payload.ts) and the lenient schemas (schema-blocks.ts) both drop them.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = /* @__PURE__ */ new Set(['__proto__', 'constructor', 'prototype']);
