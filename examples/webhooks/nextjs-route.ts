// A Next.js App Router route handler: save as app/api/webhooks/payorch/route.ts. Next.js calls
// POST with the Fetch API Request and answers 405 to other methods itself. The receiver is made
// once per server instance, when the route is first loaded: a missing key fails there, loudly.
import { createCallbackReceiver } from 'payorch';
import { confirmOrder, orderTable } from './orders.js';
import type { Order } from './orders.js';

// The keys come from PAYORCH_PROVIDER_API_KEY and PAYORCH_PROVIDER_SECRET_KEY.
const receiver = createCallbackReceiver({
  // The hash does not cover the user or the amount: each callback is checked against your order
  // row first (saved when startDeposit or startWithdrawal answered); `false` answers 409.
  confirm: confirmOrder(orderTable.orderOf),
});

// Your application's side. Each runs once per tracking_code + status; throwing answers 500 and
// the service delivers the callback again.
async function creditDeposit(order: Order, trackingCode: string, paid: number): Promise<void> {
  // The amount paid, which the customer may have changed on the payment page (spec 4.5), recorded and credited.
  console.log(`credit ${order.userId} with ${String(paid)} for ${trackingCode}`);
  await Promise.resolve();
}
async function refundWithdrawal(order: Order, trackingCode: string, status: string): Promise<void> {
  console.log(`refund ${order.userId} ${order.amount} for ${trackingCode} (${status})`);
  await Promise.resolve();
}

async function orderOf(trackingCode: string): Promise<Order> {
  const order = await orderTable.orderOf(trackingCode);
  if (order === undefined) throw new Error(`confirm found an order for ${trackingCode}`);
  return order;
}

receiver.on('deposit.completed', async (callback) => creditDeposit(await orderOf(callback.payload.tracking_code), callback.payload.tracking_code, callback.payload.amount));
// Spec 6.3 refunds rejected and failed withdrawals; canceled ends one unpaid too (docs/receiving-callbacks.md).
// Each status is its own key: refund once per tracking code.
const unpaid = (status: string): boolean => status === 'rejected' || status === 'failed' || status === 'canceled';
receiver.on('withdrawal', async (callback, { appliedStatuses }) => {
  const { tracking_code: trackingCode, status } = callback.payload;
  if (!unpaid(status) || appliedStatuses.some(unpaid)) return;
  // Reported completed before: the money may have left. A person decides.
  if (appliedStatuses.includes('completed')) {
    console.warn(`withdrawal ${trackingCode} was completed, now ${status}: not refunded automatically`);
    return;
  }
  await refundWithdrawal(await orderOf(trackingCode), trackingCode, status);
});

export function POST(request: Request): Promise<Response> {
  return receiver.handle(request);
}
