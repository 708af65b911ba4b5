import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CALLBACK_KINDS } from '../../src/webhooks/kinds.js';
import type { CallbackKind } from '../../src/webhooks/kinds.js';
import { CALLBACK_FIELDS } from '../../src/webhooks/payload.js';
import { unsigned } from '../helpers/callbacks.js';

/*
 * Callback bodies written out by hand (the recorded corpus of test/fixtures/callbacks and the
 * tests' unsigned bodies) are held to the field tables of src/webhooks/payload.ts: a field added
 * to a table fails here until some recorded body of its kind carries it, and an unsigned body
 * that carries a field no table names (a misspelling, a renamed field) fails at once.
 */

const folder = join(import.meta.dirname, '../fixtures/callbacks');
const recorded = readdirSync(folder)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ file, kind: file.split('.')[0] as CallbackKind, body: (JSON.parse(readFileSync(join(folder, file), 'utf8')) as { body: Record<string, unknown> }).body }));

/** What stands in for `iban` in crypto and wallet withdrawals (spec 6.6, docs/spec-gaps.md): kept as unknown fields. */
const BEYOND_THE_TABLE = new Set(['crypto_type', 'wallet_address', 'wallet_number']);

describe.each(CALLBACK_KINDS)('%s callbacks written by hand', (kind) => {
  const fields = Object.keys(CALLBACK_FIELDS[kind]);

  // The recorded ones carry unknown fields on purpose (test/fixtures/README.md); the tests' own do not.
  test('carry, in the tests’ unsigned body, no field the table does not name', () => {
    expect(
      Object.keys(unsigned[kind]).filter((field) => !fields.includes(field) && !BEYOND_THE_TABLE.has(field)),
      `fields of test/helpers/callbacks.ts's unsigned.${kind} that CALLBACK_FIELDS.${kind} (src/webhooks/payload.ts) does not name: fix the name in one or the other`,
    ).toEqual([]);
  });

  test('carry, among the recorded ones, every field of their table', () => {
    const files = recorded.filter((each) => each.kind === kind);
    const carried = new Set(files.flatMap((each) => Object.keys(each.body)));
    // Written by hand on purpose (test/fixtures/README.md): add the field, as the spec's service would send it, to the body of one of them.
    // The callback hash does not cover it, so the file's hash and X-Hash stay as they are.
    expect(
      fields.filter((field) => !carried.has(field)),
      `fields of CALLBACK_FIELDS.${kind} that no recorded ${kind} callback carries: add each to the "body" of one of test/fixtures/callbacks/{${files.map(({ file }) => file).join(',')}}`,
    ).toEqual([]);
  });
});
