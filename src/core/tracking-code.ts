import { TrackingCodeError } from '../errors/error.js';

/** A tracking code prefix of spec 2.1. */
export type TrackingCodePrefix = 'MAN' | 'WIT' | 'EIBAN' | 'EIBAN-WIT' | 'CC' | 'TPBD' | 'TPBW' | 'TPCD' | 'TPCW' | 'TPWD' | 'TPWW' | 'DEP' | 'WDR';

/** The record a tracking code names (spec 2.1), or `transfer` for a dealer transfer id. */
export type RecordKind =
  | 'manualDeposit'
  | 'manualWithdrawal'
  | 'eibanDeposit'
  | 'eibanWithdrawal'
  | 'creditCardPayment'
  | 'thirdPartyBankDeposit'
  | 'thirdPartyBankWithdrawal'
  | 'thirdPartyCryptoDeposit'
  | 'thirdPartyCryptoWithdrawal'
  | 'thirdPartyWalletDeposit'
  | 'thirdPartyWalletWithdrawal'
  | 'dealerManualDeposit'
  | 'dealerManualWithdrawal'
  | 'transfer';

/** Which way the money of a record moves. Card payments are their own direction. */
export type TrackingCodeDirection = 'deposit' | 'withdrawal' | 'card' | 'transfer';

// Spec 2.1: which record each prefix names and which way its money moves.
const RECORDS: Readonly<Record<TrackingCodePrefix, { kind: Exclude<RecordKind, 'transfer'>; direction: Exclude<TrackingCodeDirection, 'transfer'> }>> = {
  MAN: { kind: 'manualDeposit', direction: 'deposit' },
  WIT: { kind: 'manualWithdrawal', direction: 'withdrawal' },
  EIBAN: { kind: 'eibanDeposit', direction: 'deposit' },
  'EIBAN-WIT': { kind: 'eibanWithdrawal', direction: 'withdrawal' },
  CC: { kind: 'creditCardPayment', direction: 'card' },
  TPBD: { kind: 'thirdPartyBankDeposit', direction: 'deposit' },
  TPBW: { kind: 'thirdPartyBankWithdrawal', direction: 'withdrawal' },
  TPCD: { kind: 'thirdPartyCryptoDeposit', direction: 'deposit' },
  TPCW: { kind: 'thirdPartyCryptoWithdrawal', direction: 'withdrawal' },
  TPWD: { kind: 'thirdPartyWalletDeposit', direction: 'deposit' },
  TPWW: { kind: 'thirdPartyWalletWithdrawal', direction: 'withdrawal' },
  DEP: { kind: 'dealerManualDeposit', direction: 'deposit' },
  WDR: { kind: 'dealerManualWithdrawal', direction: 'withdrawal' },
};

/** The parts of a tracking code or transfer id. Narrow on `direction` to get `createdAt`. */
export type ParsedTrackingCode =
  | {
      readonly prefix: TrackingCodePrefix;
      readonly kind: Exclude<RecordKind, 'transfer'>;
      readonly direction: Exclude<TrackingCodeDirection, 'transfer'>;
      /** The alphanumeric middle part. */
      readonly segment: string;
      /** When the record was created: the code's Unix seconds. */
      readonly createdAt: Date;
    }
  | {
      readonly prefix: 'TRF';
      readonly kind: 'transfer';
      readonly direction: 'transfer';
      readonly segment: string;
      /** Transfer ids carry no time (spec 2.1). */
      readonly createdAt: undefined;
    };

let trackingCode: RegExp | undefined;

/** The pattern of a tracking code, made from the prefix table on first use rather than at import. */
function trackingCodePattern(): RegExp {
  if (trackingCode === undefined) {
    // Longest prefix first, so that EIBAN-WIT is read as one prefix; a regex backtracks into
    // EIBAN + segment "WIT" only when nothing else fits (EIBAN-WIT-1763811111).
    const prefixes = Object.keys(RECORDS).sort((a, b) => b.length - a.length);
    trackingCode = new RegExp(`^(${prefixes.join('|')})-([A-Za-z0-9]+)-(\\d{1,12})$`);
  }
  return trackingCode;
}

const TRANSFER_ID = /^TRF-([A-Za-z0-9]+)$/;
// Far longer than any real code; bounds the work done on hostile input.
const MAX_LENGTH = 128;

function isPrefix(value: string): value is TrackingCodePrefix {
  return Object.hasOwn(RECORDS, value);
}

/**
 * Reads a tracking code without throwing: `{ success: true, data }` or
 * `{ success: false, error }`, as zod's `safeParse` does.
 *
 * @example
 * ```ts
 * import { safeParseTrackingCode } from 'payorch';
 * declare const row: { reference: string }; // a column that may hold anything
 * declare function audit(code: { readonly kind: string; readonly createdAt?: Date }): void;
 * const result = safeParseTrackingCode(row.reference);
 * if (result.success && result.data.direction === 'withdrawal') audit(result.data);
 * ```
 */
export function safeParseTrackingCode(
  code: string,
): { readonly success: true; readonly data: ParsedTrackingCode } | { readonly success: false; readonly error: TrackingCodeError } {
  const data = readTrackingCode(code);
  return data === undefined ? { success: false, error: new TrackingCodeError(code) } : { success: true, data };
}

/**
 * What `safeParseTrackingCode` reads, or undefined: for callers that take another path on a
 * failure (verification, with a prefix spec 2.1 does not list) and so need no error, whose stack
 * costs more than the whole read. @internal
 */
export function readTrackingCode(code: string): ParsedTrackingCode | undefined {
  // `code` is typed, but callers hand over JSON fields: guard the type at run time too.
  const text: unknown = code;
  if (typeof text !== 'string' || text.length > MAX_LENGTH) return undefined;
  const match = trackingCodePattern().exec(text);
  if (match !== null) {
    const [, prefix = '', segment = '', seconds = ''] = match;
    if (isPrefix(prefix)) {
      const { kind, direction } = RECORDS[prefix];
      return { prefix, kind, direction, segment, createdAt: new Date(Number(seconds) * 1000) };
    }
  }
  const transfer = TRANSFER_ID.exec(text);
  return transfer === null ? undefined : { prefix: 'TRF', kind: 'transfer', direction: 'transfer', segment: transfer[1] ?? '', createdAt: undefined };
}

/**
 * The prefix of a tracking code of spec 2.1 and the direction it names, or undefined (a transfer
 * id included): what verification reads of every callback, without building the `Date` it does not
 * need. @internal
 */
export function recordOfTrackingCode(code: string): { readonly prefix: TrackingCodePrefix; readonly direction: Exclude<TrackingCodeDirection, 'transfer'> } | undefined {
  const text: unknown = code;
  if (typeof text !== 'string' || text.length > MAX_LENGTH) return undefined;
  // The pattern's first group is one of RECORDS' keys (trackingCodePattern): no lookup to check it.
  const prefix = trackingCodePattern().exec(text)?.[1] as TrackingCodePrefix | undefined;
  return prefix === undefined ? undefined : { prefix, direction: RECORDS[prefix].direction };
}

/**
 * Splits a tracking code (spec 2.1) into its prefix, record kind, direction, segment and
 * creation time; also reads dealer transfer ids (`TRF-...`).
 *
 * @throws {TrackingCodeError} when `code` is neither
 * @example
 * ```ts
 * import { parseTrackingCode } from 'payorch';
 * const code = parseTrackingCode('EIBAN-WIT-7hQ2mZ-1763811111');
 * code.kind;      // 'eibanWithdrawal'
 * code.direction; // 'withdrawal'
 * code.createdAt; // 2025-11-22T11:31:51.000Z
 * ```
 */
export function parseTrackingCode(code: string): ParsedTrackingCode {
  const result = safeParseTrackingCode(code);
  if (!result.success) throw result.error;
  return result.data;
}
