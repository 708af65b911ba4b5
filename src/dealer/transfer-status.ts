// The end statuses of a transfer, apart from its schemas: the client's waitFor and
// applyTransferStatuses read them without loading zod (src/dealer/calls.ts).

/** The statuses that end a transfer (spec 3.1): nothing follows them. */
export const TRANSFER_END_STATUSES = ['completed', 'failed', 'cancelled'] as const;
/** A status that ends a transfer. */
export type TransferEndStatus = (typeof TRANSFER_END_STATUSES)[number];
/** Whether `status` ends a transfer; a status the SDK does not know is not taken for an end. */
export function isTransferEndStatus(status: string): status is TransferEndStatus {
  return (TRANSFER_END_STATUSES as readonly string[]).includes(status);
}
