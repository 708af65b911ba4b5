import type { RecordClock } from './clock.js';
import { unixSeconds } from './clock.js';
import { KINDS } from './record-kinds.js';
import type { KindRule, SandboxRecordKind } from './record-kinds.js';
import { SANDBOX_DEFAULTS } from './options.js';
import { SeededRandom } from './random.js';

/** A record as the sandbox keeps it. Mutated only by the store's owner, one request at a time. */
export interface StoredRecord {
  /** Tracking code, or transfer id for a transfer. */
  readonly code: string;
  readonly kind: SandboxRecordKind;
  status: string;
  /** The amount in TRY; a deposit's may change when it is settled. */
  amount: number;
  readonly createdAt: number;
  updatedAt: number;
  readonly expiresAt: number | undefined;
  completedAt: number | undefined;
  /** The service-internal transaction id of callbacks (`tx_id`). */
  readonly txId: string;
  /** The gateway order id of card payments. */
  readonly orderId: string | undefined;
  /** The site whose credential key created it (provider records). */
  readonly siteId: number | undefined;
  /** The validated request parameters it was created from. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** What a request hands the store to create a record. */
export interface NewRecord {
  readonly amount: number;
  readonly siteId?: number | undefined;
  /** The validated parameters; copied, so the record does not share the caller's object. */
  readonly params: object;
}

/**
 * Every record, keyed by tracking code, the newest `maxRecords` of them: past it the oldest is
 * forgotten, so memory stays bounded over a long run. Handlers run synchronously from validation
 * to insertion, so concurrent requests cannot interleave: ids come from one counter, and no
 * record is lost or made twice.
 */
export class RecordStore {
  readonly #records = new Map<string, StoredRecord>();
  readonly #random: SeededRandom;
  readonly #clock: RecordClock;
  readonly #lifetimeMs: number;
  readonly #max: number;
  #sequence = 0;
  /**
   * No record that may still expire has an `expiresAt` before this. Every request ticks the
   * clock, so a scan of every record on each tick would make each request slower than the last.
   */
  #nextExpiry = Number.POSITIVE_INFINITY;

  constructor(seed: string, clock: RecordClock, lifetimeMs: number, maxRecords: number = SANDBOX_DEFAULTS.maxRecords) {
    this.#random = new SeededRandom(`${seed}:records`);
    this.#clock = clock;
    this.#lifetimeMs = lifetimeMs;
    this.#max = maxRecords;
  }

  create(kind: SandboxRecordKind, init: NewRecord): StoredRecord {
    const rule: KindRule = KINDS[kind];
    const sequence = ++this.#sequence;
    const now = this.#clock.now();
    // Random characters for realism, the counter for uniqueness.
    const segment = `${this.#random.alphanumeric(4)}${sequence.toString(36).padStart(4, '0')}`;
    const code = kind === 'transfer' ? `TRF-${segment}` : `${rule.prefix}-${segment}-${unixSeconds(now)}`;
    const card = kind === 'cardPayment' || kind === 'dealerCardPayment';
    const record: StoredRecord = {
      code,
      kind,
      status: rule.initial,
      amount: init.amount,
      createdAt: now,
      updatedAt: now,
      expiresAt: rule.expiry !== undefined || rule.showsExpiresAt === true ? now + this.#lifetimeMs : undefined,
      completedAt: undefined,
      txId: String(1_000_000 + sequence),
      orderId: card ? `ORD${this.#random.digits(6)}${String(sequence).padStart(6, '0')}` : undefined,
      siteId: init.siteId,
      params: Object.fromEntries(Object.entries(init.params) as [string, unknown][]),
    };
    this.#records.set(code, record);
    // A Map iterates in insertion order: the first key is the oldest record.
    if (this.#records.size > this.#max) {
      const oldest = this.#records.keys().next();
      if (oldest.done !== true) this.#records.delete(oldest.value);
    }
    if (rule.expiry !== undefined && record.expiresAt !== undefined) this.#nextExpiry = Math.min(this.#nextExpiry, record.expiresAt);
    return record;
  }

  get(code: string): StoredRecord | undefined {
    return this.#records.get(code);
  }

  /** Every record, oldest first. */
  list(): StoredRecord[] {
    return [...this.#records.values()];
  }

  /** Records whose lifetime has run out while they still wait in their expiring state. */
  expired(now: number): StoredRecord[] {
    if (now < this.#nextExpiry) return [];
    const due: StoredRecord[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const record of this.#records.values()) {
      const { expiry }: KindRule = KINDS[record.kind];
      if (expiry === undefined || record.status !== expiry.from || record.expiresAt === undefined) continue;
      if (record.expiresAt <= now) due.push(record);
      // A due record counts too: until it has moved on, the next call must look again.
      next = Math.min(next, record.expiresAt);
    }
    this.#nextExpiry = next;
    return due;
  }
}
