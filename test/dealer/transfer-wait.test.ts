import { describe, expect, test } from 'vitest';
import { DealerClient, RequestAbortedError, RequestValidationError, ResponseValidationError, TransferWaitTimeoutError, applyTransferStatuses, createMemoryInbox } from '../../src/index.js';
import type { MemoryInboxContext } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL } from '../helpers/sandbox.js';

// Transfers have no callback: waitFor and applyTransferStatuses read the sandbox's transfer status
// through the whole client (signing, transport, parsing). The sweep on two instances over one
// PostgreSQL table is in test/postgres/transfer-sweep.pg.test.ts.

/** A dealer client on the sandbox that runs `onRead` after each status read it sends. */
function dealerOn(sandbox: Sandbox, onRead: (reads: number) => Promise<void> | void = () => undefined): { dealer: DealerClient; reads: () => number } {
  let reads = 0;
  const fetch = async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
    const response = await sandbox.fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes('/transfer-status')) await onRead(++reads);
    return response;
  };
  return { dealer: new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, fetch, maxRetries: 0 }), reads: () => reads };
}

async function startTransfer(dealer: DealerClient): Promise<string> {
  const { eibans } = await dealer.eibans.list();
  const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 25 });
  return transfer.transfer_id;
}

describe('dealer.transfers.waitFor', () => {
  test('reads until the transfer ends, and resolves with the end status', async () => {
    const sandbox = createSandbox();
    let id = '';
    const { dealer, reads } = dealerOn(sandbox, async (count) => {
      if (count === 2) await sandbox.settle(id, 'completed');
    });
    id = await startTransfer(dealer);
    const ended = await dealer.transfers.waitFor(id, { interval: 10, timeout: 10_000 });
    expect(ended.transfer).toMatchObject({ transfer_id: id, status: 'completed' });
    expect(reads()).toBe(3);
  });

  test('rejects at the deadline with a TransferWaitTimeoutError that says money may have moved and carries the last status', async () => {
    const sandbox = createSandbox();
    const { dealer, reads } = dealerOn(sandbox);
    const id = await startTransfer(dealer);
    // A deadline long enough for a first read on a busy machine: the status it carries is that read's.
    const error: unknown = await dealer.transfers.waitFor(id, { interval: 10, timeout: 500 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransferWaitTimeoutError);
    expect(error).toMatchObject({ transferId: id, lastStatus: 'pending', timeout: 500, outcome: 'unknown' });
    expect((error as Error).message).toMatch(/may still complete, so money may have moved/);
    expect(reads()).toBeGreaterThanOrEqual(1);
  });

  test('an abort during a pause rejects at once with RequestAbortedError', async () => {
    const sandbox = createSandbox();
    const controller = new AbortController();
    const { dealer } = dealerOn(sandbox, () => {
      setTimeout(() => {
        controller.abort(new Error('shutting down'));
      }, 5);
    });
    const id = await startTransfer(dealer);
    const started = Date.now();
    const error: unknown = await dealer.transfers.waitFor(id, { interval: 60_000, signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test.each([
    [{ timeout: 0 }, 'timeout'],
    [{ timeout: Infinity }, 'timeout'],
    [{ interval: 1 }, 'interval'],
    [{ signal: 'stop' as unknown as AbortSignal }, 'signal'],
  ])('refuses %o before any read, naming the option', async (options, field) => {
    const sandbox = createSandbox();
    const { dealer, reads } = dealerOn(sandbox);
    const error: unknown = await dealer.transfers.waitFor('TRF-x1', options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.field).toBe(field);
    expect(reads()).toBe(0);
  });
});

describe('applyTransferStatuses', () => {
  test('applies each end once, leaves pending ones alone, and tells a 404 from a failure', async () => {
    const sandbox = createSandbox();
    const { dealer } = dealerOn(sandbox);
    const [done, open] = [await startTransfer(dealer), await startTransfer(dealer)];
    await sandbox.settle(done, 'completed');
    const inbox = createMemoryInbox();
    const applied: string[] = [];
    const sweep = () =>
      applyTransferStatuses<MemoryInboxContext>({
        dealer,
        transferIds: [done, open, 'TRF-unknown1'],
        inbox,
        merchantId: 'dealer-main',
        onStatus: (transfer, { key }) => void applied.push(`${transfer.transfer_id} ${transfer.status} ${key.recordTime ?? 'none'}`),
      });
    const first = await sweep();
    expect(first.map(({ transferId, result, status }) => ({ transferId, result, status }))).toEqual([
      { transferId: done, result: 'applied', status: 'completed' },
      { transferId: open, result: 'pending', status: 'pending' },
      { transferId: 'TRF-unknown1', result: 'not_found', status: undefined },
    ]);
    expect((await sweep()).map(({ result }) => result)).toEqual(['duplicate', 'pending', 'not_found']);
    const createdAt = first[0]?.transfer?.created_at ?? '';
    expect(applied).toEqual([`${done} completed ${Math.floor(Date.parse(`${createdAt}Z`) / 1000)}`]);

    // A refused read is a failure, never "not found".
    const stranger = new DealerClient({ baseUrl: SANDBOX_BASE_URL, apiKey: sandbox.accounts.dealer.apiKey, secretKey: 'wrong-secret', fetch: sandbox.fetch, maxRetries: 0 });
    const refused = await applyTransferStatuses({ dealer: stranger, transferIds: [open], inbox, merchantId: 'dealer-main', onStatus: () => undefined });
    expect(refused[0]).toMatchObject({ result: 'failed', error: { outcome: 'refused' } });
  });

  test('tells onDuplicate of every end applied before, so a row put back to pending can be marked; onStatus runs once', async () => {
    const sandbox = createSandbox();
    const { dealer } = dealerOn(sandbox);
    const done = await startTransfer(dealer);
    await sandbox.settle(done, 'failed');
    const inbox = createMemoryInbox();
    const refunds: string[] = [];
    const marked: string[] = [];
    const sweep = (onDuplicate: (transfer: { transfer_id: string; status: string }) => void) =>
      applyTransferStatuses({ dealer, transferIds: [done], inbox, merchantId: 'dealer-main', onStatus: (transfer) => void refunds.push(transfer.transfer_id), onDuplicate });
    expect((await sweep((transfer) => void marked.push(transfer.transfer_id)))[0]?.result).toBe('applied');
    expect(marked).toEqual([]);
    // The merchant's row was put back to pending: every later sweep reads it, and is told it ended.
    expect((await sweep((transfer) => void marked.push(`${transfer.transfer_id} ${transfer.status}`)))[0]?.result).toBe('duplicate');
    expect(marked).toEqual([`${done} failed`]);
    const failing = await sweep(() => {
      throw new Error('the payouts table is locked');
    });
    expect(failing[0]).toMatchObject({ result: 'failed', status: 'failed', error: new Error('the payouts table is locked') });
    expect(refunds).toEqual([done]);
  });

  test('a status the SDK does not know is left alone as pending, and a created_at that is not a time applies nothing and fails with a ResponseValidationError naming the field', async () => {
    const answers: Record<string, { status: string; created_at: string }> = {
      'TRF-new1': { status: 'on_hold', created_at: '2026-03-01T10:00:00' },
      'TRF-bad1': { status: 'completed', created_at: 'yesterday' },
    };
    const dealer = {
      transfers: {
        getStatus: ({ transfer_id }: { transfer_id: string }) => Promise.resolve({ success: true as const, transfer: { transfer_id, amount: '10.00', ...answers[transfer_id]! } }),
      },
    };
    const applied: string[] = [];
    const outcomes = await applyTransferStatuses({ dealer, transferIds: ['TRF-new1', 'TRF-bad1'], inbox: createMemoryInbox(), merchantId: 'dealer-main', onStatus: (transfer) => void applied.push(transfer.transfer_id) });
    expect(outcomes.map(({ result, status }) => [result, status])).toEqual([['pending', 'on_hold'], ['failed', 'completed']]);
    expect(outcomes[1]?.error).toBeInstanceOf(ResponseValidationError);
    expect(outcomes[1]?.error).toMatchObject({ issues: [{ field: 'transfer.created_at', rule: 'invalid_format' }] });
    expect(String(outcomes[1]?.error)).toMatch(/^ResponseValidationError: Unexpected answer from dealer\.transfers\.getStatus: transfer\.created_at: "yesterday" is not a time, so the inbox key of TRF-bad1 has no record time; nothing was applied/);
    expect(applied).toEqual([]);
  });

  test.each([
    [{ transferIds: 'TRF-1' }, 'transferIds'],
    [{ transferIds: [''] }, 'transferIds[0]'],
    [{ transferIds: ['TRF-1', 'TRF-2', 'TRF-1'] }, 'transferIds[2]'],
    [{ merchantId: undefined }, 'merchantId'],
    [{ concurrency: 0 }, 'concurrency'],
    [{ dealer: {} }, 'dealer.transfers'],
    [{ onDuplicate: 'mark' }, 'onDuplicate'],
  ])('refuses %o, naming the option', async (bad, field) => {
    const options = { dealer: dealerOn(createSandbox()).dealer, transferIds: ['TRF-1'], inbox: createMemoryInbox(), merchantId: 'dealer-main', onStatus: () => undefined, ...bad };
    const error: unknown = await applyTransferStatuses(options as Parameters<typeof applyTransferStatuses>[0]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.field).toBe(field);
  });
});
