import { CALLBACK_KINDS, CALLBACK_STATUSES } from './kinds.js';
import type { CallbackKind, CallbackStatus } from './kinds.js';
import type { AppliedCallback, CardStatusRead } from './status-read.js';

/**
 * What a receiver's handler can subscribe to: `'<kind>.<status>'` for one status the spec lists,
 * `'<kind>'` for every status of a kind (including any the SDK does not know yet), or `'*'` for
 * every callback. `'creditCard.refunded'` comes from status reads only (`receiver.reconcile`):
 * no callback carries it (spec 6.4).
 *
 * @example 'deposit.completed'
 */
export type CallbackEventName = '*' | { [K in CallbackKind]: K | `${K}.${CallbackStatus<K>}` }[CallbackKind] | 'creditCard.refunded';

/**
 * The callback a handler of `E` receives: narrowed to the event's kind, and for
 * `'<kind>.<status>'` to that status. A provider card event also takes status reads
 * (`source: 'status'`, from `receiver.reconcile`); `'creditCard.refunded'` takes only those.
 */
export type CallbackOfEvent<E extends CallbackEventName> = E extends '*'
  ? AppliedCallback
  : E extends 'creditCard.refunded'
    ? CardStatusRead & { readonly payload: { readonly status: 'refunded' } }
    : E extends `${infer K}.${infer S}`
      ? Extract<AppliedCallback, { readonly kind: K }> & { readonly payload: { readonly status: S } }
      : Extract<AppliedCallback, { readonly kind: E }>;

/** Every event name, for the run-time check of `on()`; made on first use, so that a bundle without a receiver leaves it out. */
let eventNames: ReadonlySet<string> | undefined;

/** True when `name` is one of the event names `on()` accepts. */
export function isCallbackEventName(name: unknown): name is CallbackEventName {
  eventNames ??= new Set<string>([
    '*',
    ...CALLBACK_KINDS.flatMap((kind) => [kind, ...CALLBACK_STATUSES[kind].map((status) => `${kind}.${status}`)]),
    'creditCard.refunded',
  ]);
  return typeof name === 'string' && eventNames.has(name);
}

/** The event names a callback is delivered to, most specific first. */
export function eventNamesOf(callback: AppliedCallback): readonly string[] {
  return [`${callback.kind}.${callback.payload.status}`, callback.kind, '*'];
}
