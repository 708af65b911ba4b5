import * as z from 'zod/mini';
import { initOnFirstUse, lenientObject, successFlag } from './schema-blocks.js';
import type { LenientObject } from './schema-blocks.js';

/*
 * Wire shapes both APIs use, so that neither src/provider nor src/dealer imports the other.
 * What one API alone uses stays in its own folder.
 */

/** A request with no parameters. */
export const NoParams = /* @__PURE__ */ initOnFirstUse(z.ZodMiniUndefined, () => ({ type: 'undefined' }));

/**
 * The top level of most answers (spec 2.1), around the record's fields `S`. Named, so that the
 * declarations in dist/ keep these doc comments: a type inferred here would be printed into every
 * answer's declaration without them.
 */
// A type literal, not an interface: only a type literal fits zod's shape constraint (an index signature).
export type EnvelopeShape<S extends z.core.$ZodShape> = {
  /** `true` when the call succeeded (spec 2.1); `"true"` and `1` are read as `true`. */
  readonly success: ReturnType<typeof successFlag>;
  /** Human-readable text about the result (spec 2.1). */
  readonly message: z.ZodMiniOptional<z.ZodMiniString<string>>;
  /** The record the call created or read (spec 2.1). */
  readonly data: LenientObject<S>;
  /** The service's time of the answer, `YYYY-MM-DD HH:MM:SS` (spec 2.1). Absent from some answers. */
  readonly timestamp: z.ZodMiniOptional<z.ZodMiniString<string>>;
};

/**
 * The top level of most answers: `success`, `message`, the record in `data`, `timestamp` (spec 2.1).
 * Given the record's fields, it makes the record's lenient object inside its own fields, so that
 * importing payorch builds neither (core/schema-blocks.ts).
 */
// Declarations, not arrows: bundlers ignore the annotation on the `var` arrows of dist/.
// @__NO_SIDE_EFFECTS__
export function envelope<const S extends z.core.$ZodShape>(record: () => S): LenientObject<EnvelopeShape<S>> {
  return lenientObject((): EnvelopeShape<S> => ({
    success: successFlag(),
    message: z.optional(z.string()),
    data: lenientObject(record),
    timestamp: z.optional(z.string()),
  }));
}

/** An IBAN as the spec bounds it: 15 to 34 characters (spec 4.6, 8). */
// @__NO_SIDE_EFFECTS__
export function iban() {
  return z.string().check(z.minLength(15, { error: 'must be 15 to 34 characters' }), z.maxLength(34, { error: 'must be 15 to 34 characters' }));
}

/**
 * An amount whose minimum the spec does not state (spec 8: crypto, wallet, the dealer's manual
 * IBAN): any positive amount is sent, and the service's own bounds decide (docs/spec-gaps.md).
 */
// @__NO_SIDE_EFFECTS__
export function positiveAmount() {
  return z.number().check(z.positive({ error: 'must be greater than 0' }));
}

/** The answer schema of a client's `request()`: any JSON. */
export function unknownAnswer(): z.ZodMiniUnknown {
  return z.unknown();
}
