import { assertNever } from '../../internal/assert-never.js';
import { CALLBACK_FIELDS } from '../../webhooks/payload.js';
import type { FieldSpec } from '../../webhooks/payload.js';
import type { CallbackKind } from 'payorch/webhooks';
import { UsageError } from './io.js';

/*
 * `payorch trigger --set field=value`: the unsigned fields of a callback, typed by the field
 * tables the receiver reads them with (src/webhooks/payload.ts), so that the CLI and
 * verification cannot disagree on what a field is.
 */

/**
 * The fields the hash covers, and the body's copy of it. trigger signs them itself: a value set
 * by hand would either be overwritten or make a callback whose hash cannot verify.
 */
const SIGNED_FIELDS = ['tracking_code', 'status', 'timestamp', 'hash'] as const;

/** The fields of `kind` that `--set` may change, in the order of the spec's table. */
export function settableFields(kind: CallbackKind): string[] {
  return Object.keys(CALLBACK_FIELDS[kind]).filter((field) => !(SIGNED_FIELDS as readonly string[]).includes(field));
}

function typed(field: string, spec: FieldSpec, value: string): string | number | boolean {
  const refuse = (what: string): never => {
    throw new UsageError(`--set ${field}=${value}: ${field} is ${what}`);
  };
  switch (spec.type) {
    // A tracking code or status is never settable; the case stays for the exhaustive switch.
    case 'text':
    case 'status':
    case 'id':
      return value;
    case 'number': {
      const number = Number(value);
      return value.trim() === '' || !Number.isFinite(number) || number <= 0 ? refuse('a positive number (spec 6), for example 250 or 312.50') : number;
    }
    case 'integer': {
      const number = Number(value);
      return value.trim() === '' || !Number.isSafeInteger(number) ? refuse('a whole number (spec 6.2), for example 1') : number;
    }
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : refuse('true or false (spec 6.5)');
    default:
      return assertNever(spec.type);
  }
}

/**
 * The `--set field=value` entries as payload fields of `kind`, each typed as its table says.
 * A signed, unknown or repeated field is a usage error naming the flag, the field and the fields
 * that may be set.
 */
export function readSets(kind: CallbackKind, entries: readonly string[]): Record<string, string | number | boolean> {
  const table: Readonly<Record<string, FieldSpec>> = CALLBACK_FIELDS[kind];
  const allowed = settableFields(kind).join(', ');
  const fields: Record<string, string | number | boolean> = {};
  for (const entry of entries) {
    const split = entry.indexOf('=');
    if (split < 1) throw new UsageError(`--set takes field=value, for example --set user_id=u-42: ${JSON.stringify(entry)}`);
    const field = entry.slice(0, split);
    const value = entry.slice(split + 1);
    if ((SIGNED_FIELDS as readonly string[]).includes(field)) {
      const instead = field === 'tracking_code' ? ' (use --tracking-code or --from-record)' : field === 'status' ? ' (name it in the event, <kind>.<status>)' : '';
      const why = field === 'hash' ? 'the hash is computed from the secret key and the signed fields, so trigger computes it itself' : `the hash covers ${field}, so trigger signs it itself${instead}`;
      throw new UsageError(`--set ${field}: ${why}; a ${kind} callback lets --set change ${allowed}`);
    }
    const spec = Object.hasOwn(table, field) ? table[field] : undefined;
    if (spec === undefined) throw new UsageError(`--set ${field}: a ${kind} callback has no field ${JSON.stringify(field)} (spec 6); --set may change ${allowed}`);
    if (Object.hasOwn(fields, field)) throw new UsageError(`--set ${field}: set twice; give each field once`);
    fields[field] = typed(field, spec, value);
  }
  return fields;
}
