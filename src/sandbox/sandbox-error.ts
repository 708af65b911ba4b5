import { brand, PayorchError } from '../errors/error.js';

/**
 * Why the sandbox refused: the record or delivery is unknown, section 3 does not allow the move,
 * the amount is not one a deposit can take, or an option or control input is out of range.
 */
export type SandboxErrorCode = 'unknown_record' | 'unknown_delivery' | 'refused_move' | 'invalid_amount' | 'invalid_input';

/**
 * A sandbox control (`settle()`, `redeliver()`, the clock, `createSandbox()`'s options, the
 * `/__sandbox` routes) refused what it was asked. The message names the option or field, the
 * value and the allowed range.
 *
 * @example
 * ```ts
 * try {
 *   await sandbox.settle(code, 'completed');
 * } catch (error) {
 *   if (error instanceof SandboxError && error.code === 'refused_move') console.log(error.message);
 * }
 * ```
 */
export class SandboxError extends PayorchError {
  static {
    brand(this, 'SandboxError');
  }
  /** What the sandbox refused, for code to branch on; `message` says it for people. */
  readonly code: SandboxErrorCode;
  /** @internal */
  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
