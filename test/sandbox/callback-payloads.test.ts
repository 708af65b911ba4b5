import { describe, expect, test } from 'vitest';
import { UNSHOWN_DESTINATION_FIELDS, callbackFields, callbackPayload } from '../../src/tools/sandbox/callback-payloads.js';
import type { StoredRecord } from '../../src/tools/sandbox/records.js';
import { CALLBACK_KINDS, CALLBACK_STATUSES } from '../../src/webhooks/kinds.js';
import { CALLBACK_FIELDS } from '../../src/webhooks/payload.js';

/*
 * The sandbox builds each callback from the field tables of src/webhooks/payload.ts, the ones the
 * receiver reads it by, filled from its record: a field added to a table is sent at once, so that
 * what the sandbox delivers is what users will receive.
 */

/** Added by signing, not by the payload. */
const SIGNED_LATER = new Set(['timestamp', 'hash']);

/** Fields the sandbox sends beyond the tables: what stands in for `iban` (spec 6.6, docs/spec-gaps.md), kept by the receiver as unknown fields. */
const BEYOND_THE_TABLE: Readonly<Partial<Record<(typeof CALLBACK_KINDS)[number], readonly string[]>>> = { withdrawal: UNSHOWN_DESTINATION_FIELDS };

const record = (status: string, params: Readonly<Record<string, unknown>>): StoredRecord => ({
  code: 'MAN-a1-1763812000',
  kind: 'manualDeposit',
  status,
  amount: 250,
  createdAt: 0,
  updatedAt: 0,
  expiresAt: undefined,
  completedAt: undefined,
  txId: 'tx-1',
  orderId: 'ord-1',
  siteId: 1,
  params,
});

// Each destination a withdrawal may have: an IBAN (6.3), or a crypto or wallet one (6.6).
const PARAMS = [
  { username: 'ada', fullname: 'Ada Yılmaz', user_id: 'u-1', iban: 'TR330006100519786457841326' },
  ...UNSHOWN_DESTINATION_FIELDS.map((field) => ({ [field]: 'given' })),
];

describe.each(CALLBACK_KINDS)('the sandbox’s %s callback', (kind) => {
  test('carries every field of its table, in some status, and no other but those that stand in for a missing one', () => {
    const sent = new Set<string>();
    for (const status of CALLBACK_STATUSES[kind])
      for (const params of PARAMS) for (const expired of [false, true]) for (const field of Object.keys(callbackPayload(kind, record(status, params), expired))) sent.add(field);
    const expected = [...Object.keys(CALLBACK_FIELDS[kind]).filter((field) => !SIGNED_LATER.has(field)), ...(BEYOND_THE_TABLE[kind] ?? [])];
    expect([...sent].sort()).toEqual(expected.sort());
  });

  test.each(CALLBACK_STATUSES[kind])('at %s carries the fields its table gives that status, and no other', (status) => {
    const fields = Object.keys(callbackPayload(kind, record(status, PARAMS[0]!), false));
    expect(fields.sort()).toEqual(callbackFields(kind, status).filter((field) => !SIGNED_LATER.has(field)).sort());
  });
});
