import { CALLBACK_STATUSES } from '../../webhooks/kinds.js';
import type { CallbackKind } from '../../webhooks/kinds.js';
import type { TrackingCodePrefix } from '../../core/tracking-code.js';

/*
 * The kinds of record the service creates, as data: tracking-code prefix (spec 2.1), state on
 * creation and the moves section 3 allows after it, which callback an end status sends (6.1),
 * and how it expires. Everything the sandbox does with a record's status reads this table.
 */

export interface KindRule {
  /** Tracking-code prefix (spec 2.1), one `parseTrackingCode` reads; `TRF` is the transfer id's. */
  readonly prefix: TrackingCodePrefix | 'TRF';
  /** State on creation (spec 3.2). */
  readonly initial: string;
  /** From a state, the end states `settle()` may move it to. Absent states are final. */
  readonly moves: Readonly<Record<string, readonly string[]>>;
  /** Which callback the record sends when it reaches an end status (spec 6.1). */
  readonly callback?: CallbackKind;
  /** State the record expires from, and the state it expires to, after the lifetime. */
  readonly expiry?: { readonly from: string; readonly to: string };
  /** Shows an `expires_at` though no expiry move is shown for it (the third-party bank withdrawal, 2.4). */
  readonly showsExpiresAt?: boolean;
}

// Only the third-party text names failure as a deposit outcome (6.6).
const THIRD_PARTY_DEPOSIT_END = CALLBACK_STATUSES.deposit;
const DEPOSIT_END = THIRD_PARTY_DEPOSIT_END.filter((status) => status !== 'failed');
const WITHDRAWAL_END = CALLBACK_STATUSES.withdrawal;

const deposit = (prefix: TrackingCodePrefix, ends: readonly string[] = DEPOSIT_END): KindRule => ({
  prefix,
  initial: 'showing',
  moves: { showing: ends },
  callback: 'deposit',
  expiry: { from: 'showing', to: 'expired' },
});

const withdrawal = (prefix: TrackingCodePrefix, initial: 'pending' | 'showing', showsExpiresAt = false): KindRule => ({
  prefix,
  initial,
  moves: { [initial]: WITHDRAWAL_END },
  callback: 'withdrawal',
  showsExpiresAt,
});

/**
 * The kinds of record the sandbox keeps; `SandboxRecord.kind` names one. Finer than the
 * `RecordKind` of `parseTrackingCode`: provider and dealer card payments share the CC prefix
 * but not their callbacks.
 */
export type SandboxRecordKind =
  | 'manualDeposit'
  | 'manualWithdrawal'
  | 'eibanDeposit'
  | 'eibanWithdrawal'
  | 'bankDeposit'
  | 'bankWithdrawal'
  | 'cryptoDeposit'
  | 'cryptoWithdrawal'
  | 'walletDeposit'
  | 'walletWithdrawal'
  | 'cardPayment'
  | 'dealerCardPayment'
  | 'dealerManualDeposit'
  | 'dealerManualWithdrawal'
  | 'transfer';

export const KINDS = {
  manualDeposit: deposit('MAN'),
  manualWithdrawal: withdrawal('WIT', 'pending'),
  eibanDeposit: deposit('EIBAN'),
  eibanWithdrawal: withdrawal('EIBAN-WIT', 'pending'),
  bankDeposit: deposit('TPBD', THIRD_PARTY_DEPOSIT_END),
  bankWithdrawal: withdrawal('TPBW', 'showing', true),
  cryptoDeposit: deposit('TPCD', THIRD_PARTY_DEPOSIT_END),
  cryptoWithdrawal: withdrawal('TPCW', 'showing'),
  walletDeposit: deposit('TPWD', THIRD_PARTY_DEPOSIT_END),
  walletWithdrawal: withdrawal('TPWW', 'showing'),
  // Initial state and moves of card payments are not shown (3.2): pending, then one of the
  // callback statuses; a successful payment may later be refunded (no callback lists refunded).
  cardPayment: { prefix: 'CC', initial: 'pending', moves: { pending: CALLBACK_STATUSES.creditCard, success: ['refunded'] }, callback: 'creditCard' },
  // Expiry of a dealer card payment is reported as failed (6.5).
  dealerCardPayment: { prefix: 'CC', initial: 'pending', moves: { pending: CALLBACK_STATUSES.dealerCreditCard }, callback: 'dealerCreditCard', expiry: { from: 'pending', to: 'failed' } },
  // No end states are shown for the dealer's manual IBAN records: they stay as created.
  dealerManualDeposit: { prefix: 'DEP', initial: 'pending', moves: {} },
  dealerManualWithdrawal: { prefix: 'WDR', initial: 'pending', moves: {} },
  // Transfers send no callback (6.1 lists none); their status is read with transfer-status.
  transfer: { prefix: 'TRF', initial: 'pending', moves: { pending: ['completed', 'failed', 'cancelled'] } },
} as const satisfies Record<SandboxRecordKind, KindRule>;
