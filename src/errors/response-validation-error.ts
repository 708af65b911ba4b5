import { PayorchError } from './payorch-error.js';
import type { ValidationIssue } from './request-validation-error.js';
import { brand } from './brand.js';

/**
 * The service answered with success, but the body does not have the shape the spec gives.
 * The parsed body and the raw text are kept so that nothing is lost.
 */
export class ResponseValidationError extends PayorchError {
  override name = 'ResponseValidationError';
  static {
    brand(this, 'ResponseValidationError');
  }
  readonly status: number;
  readonly issues: readonly ValidationIssue[];
  /** The parsed JSON body. */
  readonly body: unknown;
  /** The body exactly as received. */
  readonly rawBody: string;
  /** Made by the SDK when a success answer breaks its schema; keeps the body as received. */
  constructor(operation: string, init: { status: number; issues: readonly ValidationIssue[]; body: unknown; rawBody: string }) {
    super(`Unexpected answer from ${operation}: ${init.issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ')}`);
    this.status = init.status;
    this.issues = init.issues;
    this.body = init.body;
    this.rawBody = init.rawBody;
  }
}
