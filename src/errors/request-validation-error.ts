import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/** One rule a value broke: the dotted field path, the rule's code and a readable message. */
export interface ValidationIssue {
  readonly field: string;
  readonly rule: string;
  readonly message: string;
}

/**
 * The SDK refused a request before sending anything (`outcome` is always `not_sent`): a field is missing, has the wrong
 * type, or breaks a rule of the spec (minimum amount, IBAN length, date range).
 *
 * @example
 * ```ts
 * try {
 *   await provider.manual.startWithdraw({ ...body, iban: 'TR12' });
 * } catch (error) {
 *   if (error instanceof RequestValidationError) console.log(error.issues); // [{ field: 'iban', rule: 'too_small', ... }]
 * }
 * ```
 */
export class RequestValidationError extends PayorchError {
  override name = 'RequestValidationError';
  static {
    brand(this, 'RequestValidationError');
  }
  readonly issues: readonly ValidationIssue[];
  /** Made by the SDK when a request breaks its schema; `operation` names the call. */
  constructor(operation: string, issues: readonly ValidationIssue[]) {
    super(`Invalid request to ${operation}: ${issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ')}`, { outcome: 'not_sent' });
    this.issues = issues;
  }
}
