import { describe, expect, test, vi } from 'vitest';
import { CallbackRetentionError, createCallbackReceiver, createMemoryInbox, InboxError, InboxFullError, isPayorchError, RequestValidationError, signCallback } from '../../../src/index.js';
import type { CallbackErrorDetails } from '../../../src/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { deferred, deliver, serveNode } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';
import { inboxContract, INBOX_CONTRACT_PRUNE_SECONDS } from '../../../src/testing/index.js';

describe('the inbox contract, on the in-memory inbox', () => {
  // It forgets by its own clock, on the next call: the clock runs a retention behind until the
  // prune brings it to now, so that keys applied before it are as old as their records.
  for (const contractCase of inboxContract({
    store() {
      let lagMs = INBOX_CONTRACT_PRUNE_SECONDS * 1000;
      const inbox = createMemoryInbox({ retentionSeconds: INBOX_CONTRACT_PRUNE_SECONDS, now: () => Date.now() - lagMs });
      return {
        inbox: () => inbox,
        prune: (olderThanSeconds) => {
          expect(olderThanSeconds).toBe(INBOX_CONTRACT_PRUNE_SECONDS);
          lagMs = 0;
          return Promise.resolve();
        },
      };
    },
    // Nothing is committed after apply resolves: what the handlers did is all there is.
    failCommit: null,
  })) {
    test(contractCase.name, contractCase.run);
  }

  test('asks for failCommit by name when it is left out, as a JavaScript caller can', () => {
    const options = { store: () => ({ inbox: () => createMemoryInbox(), prune: () => Promise.resolve() }) } as unknown as Parameters<typeof inboxContract>[0];
    const error: unknown = (() => {
      try {
        return inboxContract(options);
      } catch (caught) {
        return caught;
      }
    })();
    expect(isPayorchError(error, RequestValidationError)).toBe(true);
    expect((error as RequestValidationError).issues[0]).toMatchObject({ field: 'failCommit', rule: 'invalid_option' });
  });

  test.each([
    ['no way of rolling back', { rollback: {}, commit: () => Promise.resolve() }],
    ['no commit', { rollback: { 'a ROLLBACK': () => Promise.resolve() } }],
    ['a way that is no function', { rollback: { 'a ROLLBACK': 'ROLLBACK' }, commit: () => Promise.resolve() }],
    ['null', null],
  ])('asks for endTransaction by name when it has %s', (_what, endTransaction) => {
    const options = { store: () => ({ inbox: () => createMemoryInbox(), prune: () => Promise.resolve() }), failCommit: null, endTransaction } as unknown as Parameters<typeof inboxContract>[0];
    expect(() => inboxContract(options)).toThrow(RequestValidationError);
    expect(() => inboxContract(options)).toThrow(/endTransaction: must be \{ rollback: \{ \[way\]: function, … \}, commit: function \}/);
  });
});

const key = (trackingCode: string, status = 'completed') => ({ merchantId: 'acct', trackingCode, status });

describe('createMemoryInbox', () => {
  test('keeps tracking code and status apart whatever characters they hold', async () => {
    const inbox = createMemoryInbox();
    expect(await inbox.process({ merchantId: 'x', trackingCode: 'A-1', status: 'x-1y' }, () => Promise.resolve())).toBe('applied');
    expect(await inbox.process({ merchantId: 'x', trackingCode: 'A-1x-1', status: 'y' }, () => Promise.resolve())).toBe('applied');
  });

  test('refuses a key whose tracking code does not end with the record\'s Unix seconds with a RequestValidationError naming it, running nothing', async () => {
    const work = vi.fn(() => Promise.resolve());
    const refused = await createMemoryInbox().process(key('ORDER-42x'), work).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(refused).toMatchObject({ outcome: 'not_sent', issues: [{ field: 'key.trackingCode', rule: 'invalid_argument' }] });
    expect((refused as Error).message).toBe('Invalid argument to inbox.process: key.trackingCode: "ORDER-42x" does not end with the record\'s Unix seconds (spec 2.1)');
    expect(work).not.toHaveBeenCalled();
  });

  test('makes a concurrent call wait for the running one and share its failure without running the work', async () => {
    const inbox = createMemoryInbox();
    const gate = deferred();
    const first = inbox.process(key('MAN-c-1'), async () => {
      await gate.promise;
      throw new Error('down');
    });
    const second = vi.fn(() => Promise.resolve());
    const waiting = inbox.process(key('MAN-c-1'), second);
    gate.resolve();
    await expect(first).rejects.toThrow('down');
    const shared = await waiting.catch((error: unknown) => error);
    expect(shared).toBeInstanceOf(InboxError);
    expect(shared).toMatchObject({ message: 'a copy of this callback delivered at the same time failed; this one was not applied either', cause: new Error('down') });
    expect(second).not.toHaveBeenCalled();
  });

  // Record times in seconds, the clock in milliseconds: a day is 86_400 s.
  const DAY = 86_400;

  test('forgets a key once its record and its application are older than retentionSeconds, then refuses that callback instead of applying it again', async () => {
    let now = 1000 * DAY * 1000;
    const inbox = createMemoryInbox({ retentionSeconds: 60, now: () => now });
    const work = vi.fn(() => Promise.resolve());
    const record = `MAN-d-${now / 1000}`;
    await inbox.process(key(record), work);
    now += 60_000 - 1;
    expect(await inbox.process(key(record), work)).toBe('duplicate');
    now += 1;
    const refused = await inbox.process(key(record), work).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CallbackRetentionError);
    expect(refused).toMatchObject({ trackingCode: record, status: 'completed', recordTime: 1000 * DAY, horizon: 1000 * DAY });
    expect(work).toHaveBeenCalledTimes(1);
  });

  test('keeps a key 30 days of record age by default, and a redelivery after that is refused, not applied again', async () => {
    let now = 1000 * DAY * 1000;
    const inbox = createMemoryInbox({ now: () => now });
    const work = vi.fn(() => Promise.resolve());
    const record = `MAN-e-${now / 1000}`;
    await inbox.process(key(record), work);
    now += 30 * DAY * 1000 - 1;
    expect(await inbox.process(key(record), work)).toBe('duplicate');
    now += 1;
    await expect(inbox.process(key(record), work)).rejects.toThrow(CallbackRetentionError);
    expect(work).toHaveBeenCalledTimes(1);
  });

  test('refuses nothing before it forgot a key: a fresh inbox applies a callback of a ten-year-old record', async () => {
    const inbox = createMemoryInbox({ now: () => 4000 * DAY * 1000 });
    expect(await inbox.process(key(`MAN-g-${400 * DAY}`), () => Promise.resolve())).toBe('applied');
  });

  test('refuses a callback never applied whose record is not younger than the newest record forgotten, records nothing, and applies a younger one', async () => {
    let now = 1000 * DAY * 1000;
    const inbox = createMemoryInbox({ retentionSeconds: DAY, now: () => now });
    const forgotten = 1000 * DAY - 10;
    await inbox.process(key(`MAN-h-${forgotten}`), () => Promise.resolve());
    now += 2 * DAY * 1000;
    const work = vi.fn(() => Promise.resolve());
    for (const record of [forgotten - 5, forgotten, forgotten - 5]) {
      const refused = await inbox.process(key(`MAN-i-${record}`), work).catch((error: unknown) => error);
      expect(refused).toMatchObject({ name: 'CallbackRetentionError', recordTime: record, horizon: forgotten });
    }
    expect(work).not.toHaveBeenCalled();
    expect(await inbox.process(key(`MAN-i-${forgotten + 1}`), work)).toBe('applied');
  });

  test('forgets the steps a failed attempt completed only with the record\'s age, and then refuses its redelivery rather than run them again', async () => {
    let now = 1000 * DAY * 1000;
    const inbox = createMemoryInbox({ retentionSeconds: DAY, now: () => now });
    const record = `MAN-j-${1000 * DAY}`;
    await expect(inbox.process(key(record), (_context, progress) => {
      progress?.add('credit');
      return Promise.reject(new Error('audit down'));
    })).rejects.toThrow('audit down');
    now += DAY * 1000 - 1;
    const seen: boolean[] = [];
    await expect(inbox.process(key(record), (_context, progress) => {
      seen.push(progress?.has('credit') ?? false);
      return Promise.reject(new Error('audit down'));
    })).rejects.toThrow('audit down');
    now += DAY * 1000;
    await expect(inbox.process(key(record), () => Promise.resolve())).rejects.toThrow(CallbackRetentionError);
    expect(seen).toEqual([true]);
  });

  test('refuses a new key when full of keys it cannot forget yet, instead of forgetting one early, and takes it once one is forgotten', async () => {
    let now = 1000 * DAY * 1000;
    const at = now / 1000;
    const inbox = createMemoryInbox({ maxKeys: 2, retentionSeconds: 10, now: () => now });
    await inbox.process(key(`MAN-f-${at}`), () => Promise.resolve());
    now += 5000;
    await inbox.process(key(`MAN-f-${at + 5}`), () => Promise.resolve());
    const work = vi.fn(() => Promise.resolve());
    await expect(inbox.process(key(`MAN-f-${at + 5}1`), work)).rejects.toThrow(InboxFullError);
    expect(work).not.toHaveBeenCalled();
    expect(await inbox.process(key(`MAN-f-${at}`), work)).toBe('duplicate');
    now += 5000;
    expect(await inbox.process(key(`MAN-f-${at + 10}`), work)).toBe('applied');
    expect(await inbox.process(key(`MAN-f-${at + 5}`), work)).toBe('duplicate');
  });

  test('full, still takes the redelivery of a key it holds partly applied: the refund that threw runs, the audit that completed does not', async () => {
    const inbox = createMemoryInbox({ maxKeys: 2 });
    const ran: string[] = [];
    let refundFails = true;
    // The receiver's two handlers of a withdrawal end: an audit, then the refund.
    const handlers = async (_context: unknown, progress?: { has(step: string): boolean; add(step: string): void }): Promise<void> => {
      for (const step of ['audit', 'refund']) {
        if (progress?.has(step) === true) continue;
        if (step === 'refund' && refundFails) throw new Error('the payout service is down');
        ran.push(step);
        progress?.add(step);
        await Promise.resolve();
      }
    };
    const withdrawal = key('WIT-fullpartial-1763812000', 'rejected');
    await expect(inbox.process(withdrawal, handlers)).rejects.toThrow('the payout service is down');
    expect(await inbox.process(key('MAN-fullother-1763812000'), () => Promise.resolve())).toBe('applied');
    const fresh = vi.fn(() => Promise.resolve());
    await expect(inbox.process(key('MAN-fullnew-1763812000'), fresh)).rejects.toThrow(InboxFullError);
    expect(fresh).not.toHaveBeenCalled();
    refundFails = false;
    expect(await inbox.process(withdrawal, handlers)).toBe('applied');
    expect(ran).toEqual(['audit', 'refund']);
    expect(await inbox.process(withdrawal, handlers)).toBe('duplicate');
    await expect(inbox.process(key('MAN-fullnew-1763812000'), fresh)).rejects.toThrow(InboxFullError);
  });

  test.each([
    [{ maxKeys: 0 }, /createMemoryInbox: maxKeys: must be an integer from 1/],
    [{ maxKeys: 1.5 }, /maxKeys: .*got 1.5/],
    [{ retentionSeconds: Number.NaN }, /retentionSeconds: must be an integer from 1 .*got NaN/],
    [{ retentionSeconds: Infinity }, /retentionSeconds: .*got Infinity/],
  ])('refuses %o', (options, message) => {
    expect(() => createMemoryInbox(options)).toThrow(RequestValidationError);
    expect(() => createMemoryInbox(options)).toThrow(message);
  });
});

describe('createMemoryInbox, what it keeps between attempts', () => {
  test('keeps the steps a failed attempt completed for the next attempt of that key only, and drops them once applied', async () => {
    const inbox = createMemoryInbox();
    const seen: boolean[] = [];
    await expect(
      inbox.process(key('MAN-steps-1'), (_context, progress) => {
        progress?.add('credit');
        return Promise.reject(new Error('audit down'));
      }),
    ).rejects.toThrow('audit down');
    await inbox.process(key('MAN-steps-2'), (_context, progress) => {
      seen.push(progress?.has('credit') ?? false);
      return Promise.resolve();
    });
    await inbox.process(key('MAN-steps-1'), (_context, progress) => {
      seen.push(progress?.has('credit') ?? false);
      return Promise.resolve();
    });
    expect(seen).toEqual([false, true]);
  });

});

describe('createMemoryInbox, the statuses of one tracking code', () => {
  test('a status of another tracking code does not wait for one whose handler is still running', async () => {
    const inbox = createMemoryInbox();
    const gate = deferred();
    const blocked = inbox.process(key(`WIT-slow-${Math.floor(Date.now() / 1000)}`, 'rejected'), () => gate.promise);
    expect(await inbox.process(key(`WIT-fast-${Math.floor(Date.now() / 1000)}`, 'failed'), () => Promise.resolve())).toBe('applied');
    gate.resolve();
    expect(await blocked).toBe('applied');
  });

  test('a receiver given rejected and failed of one withdrawal at once refunds once, with the guide’s handler', async () => {
    const refunds: string[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createMemoryInbox() });
    const unpaid = (status: string) => status === 'rejected' || status === 'failed' || status === 'canceled';
    receiver.on('withdrawal', async (callback, { appliedStatuses }) => {
      if (!unpaid(callback.payload.status) || appliedStatuses.some(unpaid)) return;
      // An outside call: the other delivery arrives meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 20));
      refunds.push(callback.payload.status);
    });
    const served = await serveNode(receiver.nodeHandler);
    try {
      const trackingCode = `WIT-twoends1-${Math.floor(Date.now() / 1000) - 60}`;
      const end = (status: string) => signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status }, PROVIDER);
      const answers = await Promise.all([deliver(served.url, end('rejected')), deliver(served.url, end('failed'))]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(refunds).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  /** A receiver whose withdrawal handlers are `handlers`, in order, on a real socket; `end` signs one end status of a fresh withdrawal. */
  async function withdrawals(name: string, ...handlers: ((status: string, appliedStatuses: readonly string[]) => void)[]) {
    const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createMemoryInbox(), onError: () => undefined });
    for (const handler of handlers) {
      receiver.on('withdrawal', (callback, { appliedStatuses }) => {
        handler(callback.payload.status, appliedStatuses);
      });
    }
    const served = await serveNode(receiver.nodeHandler);
    const trackingCode = `WIT-${name}-${Math.floor(Date.now() / 1000) - 60}`;
    return { served, end: (status: string) => signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status }, PROVIDER) };
  }
  const unpaid = (status: string) => status === 'rejected' || status === 'failed' || status === 'canceled';
  const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
  const OK = { status: 200, body: { success: true } };

  test.each([
    ['rejected', 'failed'],
    ['failed', 'rejected'],
  ])('a withdrawal ended %s whose second handler threw after the refund, then %s, is refunded once: the refund made is not undone, and the other end sees it', async (first, second) => {
    const refunds: string[] = [];
    let fail = true;
    const { served, end } = await withdrawals(
      `second${first}`,
      (status, appliedStatuses) => {
        if (unpaid(status) && !appliedStatuses.some(unpaid)) refunds.push(status);
      },
      () => {
        if (fail) throw new Error('the audit service is down');
      },
    );
    try {
      expect(await deliver(served.url, end(first))).toEqual(NOT_APPLIED);
      fail = false;
      expect(await deliver(served.url, end(second))).toEqual(OK);
      expect(await deliver(served.url, end(first))).toEqual(OK);
      expect(refunds).toEqual([first]);
    } finally {
      await served.close();
    }
  });

  test('a withdrawal end whose refund handler threw after an audit handler completed takes its place: the next end sees it, and its own redelivery refunds once', async () => {
    const refunds: string[] = [];
    const seen: (readonly string[])[] = [];
    let fail = true;
    const { served, end } = await withdrawals(
      'auditfirst',
      () => undefined,
      (status, appliedStatuses) => {
        seen.push(appliedStatuses);
        if (fail) throw new Error('the payout service is down');
        if (unpaid(status) && !appliedStatuses.some(unpaid)) refunds.push(status);
      },
    );
    try {
      expect(await deliver(served.url, end('rejected'))).toEqual(NOT_APPLIED);
      fail = false;
      // The rejected status took its place when the audit completed: failed comes after it.
      expect(await deliver(served.url, end('failed'))).toEqual(OK);
      expect(await deliver(served.url, end('rejected'))).toEqual(OK);
      expect(seen).toEqual([[], ['rejected'], []]);
      expect(refunds).toEqual(['rejected']);
    } finally {
      await served.close();
    }
  });
});

describe('a receiver on the in-memory inbox, past its retention', () => {
  test('answers a re-signed redelivery of a forgotten callback 422 record_too_old, tells onError (phase retention) and does not apply it again', async () => {
    const DAY = 86_400_000;
    let now = Date.now();
    const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
    const credit = vi.fn();
    const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createMemoryInbox({ now: () => now }), onError: (error, details) => void errors.push({ error, details }) });
    receiver.on('deposit.completed', credit);
    const served = await serveNode(receiver.nodeHandler);
    try {
      const trackingCode = `MAN-resent1-${Math.floor(now / 1000)}`;
      const delivery = () => signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);
      expect(await deliver(served.url, delivery())).toEqual({ status: 200, body: { success: true } });
      now += 31 * DAY;
      // Re-signed now: a fresh timestamp and a genuine hash, as a support "resend" sends it.
      expect(await deliver(served.url, delivery())).toEqual({ status: 422, body: { success: false, error: 'record_too_old' } });
      expect(credit).toHaveBeenCalledTimes(1);
      expect(errors).toHaveLength(1);
      expect(errors[0]?.details).toMatchObject({ phase: 'retention', callback: { kind: 'deposit', payload: { tracking_code: trackingCode } } });
      expect(isPayorchError(errors[0]?.error, CallbackRetentionError)).toBe(true);
    } finally {
      await served.close();
    }
  });
});
