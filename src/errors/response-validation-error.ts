import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { redactText, redactValue, secretForms } from './redact-secrets.js';
import type { ValidationIssue } from './request-validation-error.js';
import { brand } from './brand.js';

/**
 * The service answered with success, but the body does not have the shape the spec gives.
 * The parsed body and the raw text are kept so that nothing is lost.
 */
export class ResponseValidationError extends PayorchError {
  static {
    brand(this, 'ResponseValidationError');
  }
  /** HTTP status of the answer (a 2xx: the service reported success). */
  readonly status: number;
  /** Each field of the answer that does not fit the spec's shape, with the rule it breaks. */
  readonly issues: readonly ValidationIssue[];
  /** The parsed JSON body. */
  readonly body: unknown;
  /** The body as received, but for echoed secrets, shown as `[redacted]`. */
  readonly rawBody: string;
  /**
   * Made by the SDK when a success answer breaks its schema; keeps the body as received. `redact`
   * lists the values that must not appear anywhere in the error (the secret key, every hash sent,
   * a credential key, an X-Key).
   */
  constructor(operation: string, init: { status: number; issues: readonly ValidationIssue[]; body: unknown; rawBody: string; redact?: readonly string[] | undefined; outcome?: CallOutcome | undefined }) {
    const forms = secretForms(init.redact ?? []);
    const issues = redactValue(init.issues, forms) as readonly ValidationIssue[];
    // A success answer payorch cannot read: the request may well have been processed.
    super(redactText(`Unexpected answer from ${operation}: ${issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ')}`, forms), { outcome: init.outcome ?? 'unknown' });
    this.status = init.status;
    this.issues = issues;
    this.body = redactValue(init.body, forms);
    this.rawBody = redactText(init.rawBody, forms);
  }
}
