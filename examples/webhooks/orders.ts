// What every receiver example checks before it applies a callback: the hash covers tracking_code,
// status and timestamp only, so the user and the amount of a callback are compared with your own
// record of the payment, saved under its tracking code when startDeposit, startWithdrawal or
// createPayment answered (docs/receiving-callbacks.md, "What the hash does not cover").
import type { AppliedCallback } from 'payorch';

/** Your record of a payment you started, keyed by its tracking code. */
export type Order =
  | {
      readonly userId: string;
      readonly kind: 'deposit';
      /** The amount you asked for. The amount paid may differ (spec 4.5), so it is not compared. */
      readonly amount: number;
      /**
       * The most you accept as paid for this deposit: the customer may change the amount on the
       * payment page (spec 4.5), so a careful merchant sets the ceiling it would credit without a
       * person looking (its limit for this user), rather than trusting an unsigned amount.
       */
      readonly maxAmount: number;
    }
  | {
      readonly userId: string;
      readonly kind: 'withdrawal' | 'creditCard';
      /** The amount you asked for: the callback's must be the same. */
      readonly amount: number;
    };

/** Reads your order row of a tracking code: a table in a real application. */
export type OrderLookup = (trackingCode: string) => Order | undefined | Promise<Order | undefined>;

/** TRY amounts as integer kuruş: money compared and stored exactly, whatever float noise the JSON carried. */
export const kurus = (amount: number): number => Math.round(amount * 100);

/**
 * Whether a callback is one of your orders: its tracking code is your order of its kind, for the
 * same user, and its amount is the one you asked for (a withdrawal, a card payment) or at most the
 * ceiling you accept as paid (a deposit: spec 4.5 lets the customer change it). The hash covers
 * tracking_code, status and timestamp only, so a replay that changed the user or the amount is
 * refused here; the genuine delivery still applies. Every recipe that moves money calls it from
 * its `confirm`, with the order row read from its own database.
 */
export function orderMatches(order: Order | undefined, callback: AppliedCallback): boolean {
  // A kind the SDK does not know yet moves no money in these examples: it is only logged.
  if (callback.kind === 'unknown') return true;
  if (order === undefined) return false;
  switch (callback.kind) {
    case 'deposit':
      return order.kind === 'deposit' && order.userId === callback.payload.user_id && kurus(callback.payload.amount) <= kurus(order.maxAmount);
    case 'withdrawal':
      return order.kind === 'withdrawal' && order.userId === callback.payload.user_id && kurus(order.amount) === kurus(callback.payload.amount);
    case 'creditCard':
      return order.kind === 'creditCard' && order.userId === callback.payload.user_id && kurus(order.amount) === kurus(callback.payload.amount);
    case 'dealerCreditCard':
      // The dealer's card callback names no user: the payment is yours and its amount, when
      // given (a failure may leave it out), agrees.
      return order.kind === 'creditCard' && (callback.payload.amount === undefined || kurus(order.amount) === kurus(callback.payload.amount));
  }
}

/**
 * The receivers' `confirm` over an order lookup ({@link orderMatches}). `false` answers 409 inline;
 * with `enqueue`, `apply` rejects and the job ends in the dead letters, kept until replayed. A
 * genuine callback refused inline until the service stops retrying is lost: every refusal reaches
 * `onError` (phase `confirm`), for someone to look at.
 */
export function confirmOrder(orderOf: OrderLookup): (callback: AppliedCallback) => Promise<boolean> {
  return async (callback) => orderMatches(await orderOf(callback.payload.tracking_code), callback);
}

/** An order table in memory, for the examples run from the command line and their tests. */
export function memoryOrders(): { readonly save: (trackingCode: string, order: Order) => void; readonly orderOf: OrderLookup } {
  const orders = new Map<string, Order>();
  return {
    save: (trackingCode, order) => void orders.set(trackingCode, order),
    orderOf: (trackingCode) => orders.get(trackingCode),
  };
}

/** The order table of the Next.js route example: a module of your application, a database table there. */
export const orderTable = /* @__PURE__ */ memoryOrders();
