import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * The PostgreSQL inbox runs behind a pooler in statement pooling (PgBouncer's
 * `pool_mode = statement`), which refuses every transaction block: no callback can be applied
 * together with its key there. Nothing was applied or recorded; the receiver answers 500 and tells
 * `onError` (phase `'inbox'`). Connect the inbox's pool in transaction or session pooling, or
 * directly (docs/webhooks.md, "Poolers").
 */
export class StatementPoolingError extends PayorchError {
  static {
    brand(this, 'StatementPoolingError');
  }
}
