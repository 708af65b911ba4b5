// Until src/callbacks/kinds.ts (the one table of kinds and statuses) lands: the same names, so
// that this file then becomes a re-export of it.
export const CALLBACK_STATUSES = {
  deposit: ['completed', 'canceled', 'expired', 'failed'],
  withdrawal: ['completed', 'rejected', 'failed', 'canceled'],
  creditCard: ['success', 'failed', 'cancelled'],
  dealerCreditCard: ['success', 'failed'],
} as const;
export type CallbackKind = keyof typeof CALLBACK_STATUSES;
export const CALLBACK_KINDS = Object.keys(CALLBACK_STATUSES) as readonly CallbackKind[];
export function isCallbackKind(value: unknown): value is CallbackKind {
  return typeof value === 'string' && Object.hasOwn(CALLBACK_STATUSES, value);
}
