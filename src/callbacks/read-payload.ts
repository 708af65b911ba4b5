import { assertNever } from '../core/assert-never.js';
import { PROTOTYPE_KEYS } from '../core/prototype-keys.js';
import type { ValidationIssue } from '../errors/request-validation-error.js';
import type { FieldTable, FieldType } from './fields.js';

/*
 * Reads a verified callback body by its field table: what the kind's zod schema (schemas.ts)
 * does, by hand. One loop and no allocation per field, where the schema runs a union per field;
 * test/callbacks/read-payload.test.ts holds the two to the same output on generated bodies.
 */

const NUMERIC = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;

/** What `readField` returns for a value of the wrong type: no value is this object. */
export const INVALID: unique symbol = Symbol('invalid');

/** One field's value normalised to its type (fields.ts), or `INVALID`. */
export function readField(type: FieldType, value: unknown): unknown {
  switch (type) {
    case 'text':
    case 'status':
      return typeof value === 'string' ? value : INVALID;
    case 'id':
      if (typeof value === 'string') return value;
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : INVALID;
    case 'number':
      if (typeof value === 'number') return Number.isFinite(value) ? value : INVALID;
      return typeof value === 'string' && NUMERIC.test(value.trim()) ? Number(value.trim()) : INVALID;
    case 'integer':
      if (typeof value === 'number') return Number.isSafeInteger(value) ? value : INVALID;
      return typeof value === 'string' && INTEGER.test(value.trim()) ? Number(value.trim()) : INVALID;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === 'true') return true;
      return value === 0 || value === 'false' ? false : INVALID;
    default:
      return assertNever(type);
  }
}

const EXPECTED: Record<FieldType, string> = {
  text: 'expected a string',
  status: 'expected a string',
  id: 'expected a string or a number',
  number: 'expected a number or a numeric string',
  integer: 'expected an integer or an integer string',
  boolean: 'expected a boolean, 1/0 or "true"/"false"',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : `a ${typeof value}`;
}

/** The issue of a field whose value `readField` refused: what the type takes, and the value's kind (never the value). */
export function fieldIssue(field: string, type: FieldType, value: unknown): ValidationIssue {
  return value === undefined ? { field, rule: 'required', message: 'is required' } : { field, rule: 'invalid_type', message: `${EXPECTED[type]}, got ${describe(value)}` };
}

/** A payload read by its table, or what kept it from being read. */
export type ReadResult =
  | { readonly success: true; readonly data: Record<string, unknown> }
  | { readonly success: false; readonly issues: readonly ValidationIssue[] };

/**
 * The body's declared fields normalised to their types, then every other field as sent but
 * `__proto__`, `constructor` and `prototype` (the same object the kind's lenient schema returns).
 * `null` in an optional field reads as absent (`undefined`); the caller's body is not changed. A field `given` a value takes it instead
 * of the body's, unread (the signed values that verified, in place of their copies).
 */
export function readPayload(fields: FieldTable, body: Readonly<Record<string, unknown>>, given: Readonly<Record<string, unknown>> = {}): ReadResult {
  const data: Record<string, unknown> = {};
  let issues: ValidationIssue[] | undefined;
  for (const key in fields) {
    const field = fields[key];
    if (field === undefined) continue;
    const forced = given[key];
    if (forced !== undefined) {
      data[key] = forced;
      continue;
    }
    const value = body[key];
    if (value === undefined || (value === null && field.optional === true)) {
      if (field.optional === true) {
        if (Object.hasOwn(body, key)) data[key] = undefined;
      } else {
        (issues ??= []).push(fieldIssue(key, field.type, undefined));
      }
      continue;
    }
    const read = readField(field.type, value);
    if (read === INVALID) (issues ??= []).push(fieldIssue(key, field.type, value));
    else data[key] = read;
  }
  if (issues !== undefined) return { success: false, issues };
  for (const key of Object.keys(body)) {
    if (Object.hasOwn(fields, key) || PROTOTYPE_KEYS.has(key)) continue;
    data[key] = body[key];
  }
  return { success: true, data };
}
