/*
 * The callbacks the service POSTs and the statuses each carries (spec 6.2 to 6.5), written once.
 * The callback schemas, verifyCallback, the sandbox and the CLI all read this table.
 */

// Each list on its own too: a bundler drops an unused `openEnum(LIST)`, but keeps one whose
// argument reads a property (a getter could run).
export const DEPOSIT_STATUSES = ['completed', 'canceled', 'expired', 'failed'] as const;
export const WITHDRAWAL_STATUSES = ['completed', 'rejected', 'failed', 'canceled'] as const;
export const CREDIT_CARD_STATUSES = ['success', 'failed', 'cancelled'] as const;
export const DEALER_CREDIT_CARD_STATUSES = ['success', 'failed'] as const;

/**
 * Every status each kind of callback carries, by kind. `deposit` lists `failed` because the
 * third-party text names it (spec 6.6); `creditCard` spells `cancelled` with two l's (6.4); a
 * dealer card payment that expires is reported as `failed` (6.5).
 */
export const CALLBACK_STATUSES = {
  deposit: DEPOSIT_STATUSES,
  withdrawal: WITHDRAWAL_STATUSES,
  creditCard: CREDIT_CARD_STATUSES,
  dealerCreditCard: DEALER_CREDIT_CARD_STATUSES,
} as const;

/** Which callback a body is: a deposit, a withdrawal, a provider card or a dealer card payment. */
export type CallbackKind = keyof typeof CALLBACK_STATUSES;

/** The statuses a callback of kind `K` carries, as the spec lists them. */
export type CallbackStatus<K extends CallbackKind> = (typeof CALLBACK_STATUSES)[K][number];

/** The four callback kinds, in the order of spec 6. */
export const CALLBACK_KINDS = Object.keys(CALLBACK_STATUSES) as readonly CallbackKind[];

/** Whether `value` names a callback kind; for input read at run time (options, flags, JSON). */
export function isCallbackKind(value: unknown): value is CallbackKind {
  return typeof value === 'string' && Object.hasOwn(CALLBACK_STATUSES, value);
}

/** Whether `status` is one the spec lists for callbacks of `kind`. */
export function isCallbackStatus<K extends CallbackKind>(kind: K, status: string): status is CallbackStatus<K> {
  return (CALLBACK_STATUSES[kind] as readonly string[]).includes(status);
}
