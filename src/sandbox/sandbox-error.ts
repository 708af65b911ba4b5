import { brand, isBranded } from '../errors/brand.js';
import { PayorchError } from '../errors/payorch-error.js';

/** Why a sandbox control refused: the record is unknown, or section 3 does not allow the move. */
export type SandboxErrorCode = 'unknown_record' | 'refused_move' | 'invalid_amount';

/**
 * A sandbox control (`settle()`, the `/__sandbox` routes) refused what it was asked.
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
  override name = 'SandboxError';
  static {
    brand(this, 'SandboxError');
  }
  readonly code: SandboxErrorCode;
  /** @internal */
  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Whether `value` is a {@link SandboxError}, from any copy of payorch (ESM or CommonJS build). */
export function isSandboxError(value: unknown): value is SandboxError {
  return isBranded(value, 'SandboxError');
}
