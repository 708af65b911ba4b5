// What every receiver example checks before it applies a callback: the hash covers tracking_code,
// status and timestamp only, so the user and the amount of a callback are compared with your own
// record of the payment, saved under its tracking code when startDeposit, startWithdrawal or
// createPayment answered (docs/webhooks.md, "What the hash does not cover").
import type { AppliedCallback } from 'payorch';

/** Your record of a payment you started, keyed by its tracking code. */
export interface Order {
  readonly userId: string;
  readonly kind: 'deposit' | 'withdrawal' | 'creditCard';
  /** The amount you asked for. A deposit's paid amount may differ (spec 4.5). */
  readonly amount: number;
}

/** Reads your order row of a tracking code: a table in a real application. */
export type OrderLookup = (trackingCode: string) => Order | undefined | Promise<Order | undefined>;

// Amounts are TRY with kuruş: equal to the cent, whatever float noise the JSON carried.
const sameAmount = (a: number, b: number): boolean => Math.round(a * 100) === Math.round(b * 100);

/**
 * The receivers' `confirm`: a callback applies only when its tracking code is one of your orders
 * of its kind, for the same user; a withdrawal's and a card payment's amount must be yours too. A
 * deposit's amount is not compared: the customer may change it on the payment page (spec 4.5), so
 * the handler records the amount paid. `false` answers 409, and a genuine callback refused until
 * the service stops retrying is lost: every refusal reaches `onError`, for someone to look at.
 */
export function confirmOrder(orderOf: OrderLookup): (callback: AppliedCallback) => Promise<boolean> {
  return async (callback) => {
    // A kind the SDK does not know yet moves no money in these examples: it is only logged.
    if (callback.kind === 'unknown') return true;
    const order = await orderOf(callback.payload.tracking_code);
    if (order === undefined) return false;
    switch (callback.kind) {
      case 'deposit':
        return order.kind === 'deposit' && order.userId === callback.payload.user_id;
      case 'withdrawal':
        return order.kind === 'withdrawal' && order.userId === callback.payload.user_id && sameAmount(order.amount, callback.payload.amount);
      case 'creditCard':
        return order.kind === 'creditCard' && order.userId === callback.payload.user_id && sameAmount(order.amount, callback.payload.amount);
      case 'dealerCreditCard':
        // The dealer's card callback names no user: the payment is yours and its amount, when
        // given (a failure may leave it out), agrees.
        return order.kind === 'creditCard' && (callback.payload.amount === undefined || sameAmount(order.amount, callback.payload.amount));
    }
  };
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
