import { sha256Hex } from '../internal/hash/sha256.js';
import type { CallbackKey } from '../inboxes/inbox.js';

/**
 * The one string form of a callback's key (merchant id, tracking code, status), for use as the
 * idempotency key of an external API that a handler calls: a refund, a payout, an e-mail. A
 * handler that runs again for the same callback (a redelivery after a failure, a concurrent copy
 * on D1) then sends the same key, and the other service does the work once.
 *
 * It is `payorch-cb1-` followed by the hex SHA-256 of the UTF-8 bytes of
 * `JSON.stringify([merchantId, trackingCode, status])`: 76 ASCII characters whatever the parts hold,
 * within the idempotency key limits of the usual APIs. JSON keeps the parts apart (no two keys
 * share a string), and the digest keeps the merchant id out of it: it is the receiver's API key
 * when no `merchantId` is given, and an API key must not reach another company's logs. The
 * form is stable: every later version of payorch returns the same string for the same key, so
 * keys stay valid across upgrades (a new form would get a new prefix and a new function).
 *
 * @example
 * ```ts
 * import { callbackKeyString } from 'payorch';
 * import type { CallbackInboxContext, CallbackReceiver } from 'payorch';
 * declare const receiver: CallbackReceiver<CallbackInboxContext>;
 * declare const payouts: { refund(input: { user: string; amount: number }, options: { idempotencyKey: string }): Promise<void> };
 * // Your order row, saved when startWithdrawal answered: the hash covers neither user nor amount.
 * declare function orderOf(trackingCode: string): Promise<{ readonly userId: string; readonly amount: number }>;
 * receiver.on('withdrawal.rejected', async (callback, { key }) => {
 *   const order = await orderOf(callback.payload.tracking_code);
 *   await payouts.refund({ user: order.userId, amount: order.amount }, { idempotencyKey: callbackKeyString(key) });
 * });
 * ```
 */
export function callbackKeyString(key: CallbackKey): string {
  return `payorch-cb1-${sha256Hex(JSON.stringify([key.merchantId, key.trackingCode, key.status]))}`;
}

/**
 * The merchant a receiver's keys and jobs are kept under: its `merchantId`, or with none (or one
 * equal to the API key) a digest of the API key, `payorch-ak1-` and 32 hex digits of a SHA-256.
 * The API key identifies the merchant to the service only: written into every job, inbox row and
 * dead-letter listing, it would reach whoever reads the queue or the database.
 */
export function merchantIdOf(apiKey: string, merchantId: string | undefined): string {
  return merchantId === undefined || merchantId === apiKey ? `payorch-ak1-${sha256Hex(`payorch merchant\n${apiKey}`).slice(0, 32)}` : merchantId;
}
