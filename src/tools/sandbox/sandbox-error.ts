import { PayorchError } from '../../errors/error.js';

/**
 * Why the sandbox refused: the record or delivery is unknown, section 3 does not allow the move,
 * or the amount is not one a deposit can take. A value out of range (an option, a clock move) is
 * a `RequestValidationError` with the rule `invalid_option` instead, as every option of payorch.
 */
export type SandboxErrorCode = 'unknown_record' | 'unknown_delivery' | 'refused_move' | 'invalid_amount';

/**
 * A sandbox control (`settle()`, `redeliver()`, the `/__sandbox` routes) refused what it was
 * asked, given the records it holds. The message names the record or delivery and why.
 *
 * @example
 * ```ts
 * import { SandboxError } from 'payorch/sandbox';
 * import type { Sandbox } from 'payorch/sandbox';
 * declare const sandbox: Sandbox;
 * declare const code: string; // a tracking code the sandbox gave
 * try {
 *   await sandbox.settle(code, 'completed');
 * } catch (error) {
 *   if (error instanceof SandboxError && error.code === 'refused_move') console.log(error.message);
 * }
 * ```
 */
export class SandboxError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'SandboxError';
  /** What the sandbox refused, for code to branch on; `message` says it for people. */
  readonly code: SandboxErrorCode;
  /** @internal */
  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
