import * as z from 'zod';
import { lenientObject, successFlag } from './schema-blocks.js';

/*
 * Wire shapes both APIs use, so that neither src/provider nor src/dealer imports the other.
 * What one API alone uses stays in its own folder.
 */

/** A request with no parameters. */
export const NoParams = z.undefined();

/** The top level of most answers: `success`, `message`, the record in `data`, `timestamp` (spec 2.1). */
export const envelope = <T extends z.ZodType>(data: T) =>
  lenientObject({
    /** `true` when the call succeeded (spec 2.1). */
    success: successFlag,
    /** Human-readable text about the result (spec 2.1). */
    message: z.string().optional(),
    /** The record the call created or read (spec 2.1). */
    data,
    /** The service's time of the answer, `YYYY-MM-DD HH:MM:SS` (spec 2.1). Absent from some answers. */
    timestamp: z.string().optional(),
  });

/** An IBAN as the spec bounds it: 15 to 34 characters (spec 4.6, 8). */
export const iban = () =>
  z.string().min(15, { error: 'must be 15 to 34 characters' }).max(34, { error: 'must be 15 to 34 characters' });

/**
 * An amount whose minimum the spec does not state (spec 8: crypto, wallet, the dealer's manual
 * IBAN): any positive amount is sent, and the service's own bounds decide (docs/spec-gaps.md).
 */
export const positiveAmount = () => z.number().positive({ error: 'must be greater than 0' });
