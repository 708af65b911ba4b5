import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/** One rule a value broke: the dotted field path, the rule's code and a readable message. */
export interface ValidationIssue {
  /**
   * Where the value is: a dotted path into the body (`amount`, `extra.wallet_number`), an option's
   * name (`timeout`, `maxRetries`), several names joined by `, ` for unknown fields, or `''` for
   * the body itself.
   */
  readonly field: string;
  /**
   * The rule that failed, for code to branch on: a zod issue code for a schema rule (for example
   * `invalid_type`, `too_small`, `too_big`, `invalid_format`, `invalid_value`, `unrecognized_keys`,
   * `custom`), or one of payorch's own: `required`, `invalid_option`, `invalid_path`,
   * `not_allowed`, `header_name`, `header_value`.
   */
  readonly rule: string;
  /** What is wrong and what is allowed, in English, for people (`must be at least 10`); it names no secret. */
  readonly message: string;
}

/**
 * The SDK refused a request before sending anything (`outcome` is always `not_sent`): a field is missing, has the wrong
 * type, or breaks a rule of the spec (minimum amount, IBAN length, date range); or an option given to
 * a constructor or a call is impossible (rule `invalid_option`, `baseUrl` included: the message then
 * reads "Invalid option for new ProviderClient: …").
 *
 * @example
 * ```ts
 * try {
 *   await provider.manual.startWithdrawal({ ...body, iban: 'TR12' });
 * } catch (error) {
 *   if (error instanceof RequestValidationError) console.log(error.issues); // [{ field: 'iban', rule: 'too_small', ... }]
 * }
 * ```
 */
export class RequestValidationError extends PayorchError {
  static {
    brand(this, 'RequestValidationError');
  }
  /** Every rule the request broke, at least one; nothing was sent. */
  readonly issues: readonly ValidationIssue[];
  /** Made by the SDK when a request breaks its schema; `operation` names the call. */
  constructor(operation: string, issues: readonly ValidationIssue[]) {
    // A refused option is no fault of the request's fields: the message says which it is.
    const subject = issues.length > 0 && issues.every((issue) => issue.rule === 'invalid_option') ? 'Invalid option for' : 'Invalid request to';
    super(`${subject} ${operation}: ${issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ')}`, { outcome: 'not_sent' });
    this.issues = issues;
  }
}
