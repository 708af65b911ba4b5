import { describe, expect, test, vi } from 'vitest';
import { createMemoryInbox, InboxFullError, RequestValidationError } from '../../src/index.js';
import { deferred } from '../helpers/serve.js';

const key = (trackingCode: string, status = 'completed') => ({ account: 'acct', trackingCode, status });

describe('createMemoryInbox', () => {
  test('runs the work once per key and reports later calls as duplicates', async () => {
    const inbox = createMemoryInbox();
    const work = vi.fn(() => Promise.resolve());
    expect(await inbox.process(key('MAN-a-1'), work)).toBe('applied');
    expect(await inbox.process(key('MAN-a-1'), work)).toBe('duplicate');
    expect(await inbox.process(key('MAN-a-1', 'canceled'), work)).toBe('applied');
    expect(work).toHaveBeenCalledTimes(2);
    expect(work).toHaveBeenCalledWith({ key: key('MAN-a-1'), appliedStatuses: [] }, expect.anything());
  });

  test('keeps tracking code and status apart whatever characters they hold', async () => {
    const inbox = createMemoryInbox();
    expect(await inbox.process({ account: 'x', trackingCode: 'a b', status: 'c' }, () => Promise.resolve())).toBe('applied');
    expect(await inbox.process({ account: 'x', trackingCode: 'a', status: 'b c' }, () => Promise.resolve())).toBe('applied');
  });

  test('records nothing when the work fails, so the next call runs it again', async () => {
    const inbox = createMemoryInbox();
    await expect(inbox.process(key('MAN-b-1'), () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await inbox.process(key('MAN-b-1'), () => Promise.resolve())).toBe('applied');
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
    await expect(waiting).rejects.toThrow(/a copy of this callback delivered at the same time failed/);
    expect(second).not.toHaveBeenCalled();
  });

  test('remembers a key for retentionSeconds, then forgets it', async () => {
    let now = 1_000_000;
    const inbox = createMemoryInbox({ retentionSeconds: 60, now: () => now });
    await inbox.process(key('MAN-d-1'), () => Promise.resolve());
    now += 60_000 - 1;
    expect(await inbox.process(key('MAN-d-1'), () => Promise.resolve())).toBe('duplicate');
    now += 1;
    expect(await inbox.process(key('MAN-d-1'), () => Promise.resolve())).toBe('applied');
  });

  test('keeps keys 3 days and 300 s by default, the oldest callback verifyCallback accepts', async () => {
    let now = 0;
    const inbox = createMemoryInbox({ now: () => now });
    await inbox.process(key('MAN-e-1'), () => Promise.resolve());
    now = (259_200 + 300) * 1000 - 1;
    expect(await inbox.process(key('MAN-e-1'), () => Promise.resolve())).toBe('duplicate');
  });

  test('refuses a new key when full of unexpired keys instead of forgetting one early, and takes it once one expires', async () => {
    let now = 0;
    const inbox = createMemoryInbox({ maxKeys: 2, retentionSeconds: 10, now: () => now });
    await inbox.process(key('MAN-f-1'), () => Promise.resolve());
    now = 5000;
    await inbox.process(key('MAN-f-2'), () => Promise.resolve());
    const work = vi.fn(() => Promise.resolve());
    await expect(inbox.process(key('MAN-f-3'), work)).rejects.toThrow(InboxFullError);
    expect(work).not.toHaveBeenCalled();
    expect(await inbox.process(key('MAN-f-1'), work)).toBe('duplicate');
    now = 10_000;
    expect(await inbox.process(key('MAN-f-3'), work)).toBe('applied');
    expect(await inbox.process(key('MAN-f-2'), work)).toBe('duplicate');
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

  test('tells the statuses applied before for the same account and tracking code, not another account\'s', async () => {
    const inbox = createMemoryInbox();
    const seen: (readonly string[])[] = [];
    const record = ({ appliedStatuses }: { readonly appliedStatuses: readonly string[] }): Promise<void> => {
      seen.push(appliedStatuses);
      return Promise.resolve();
    };
    await inbox.process(key('WIT-ends-1', 'rejected'), record);
    await inbox.process({ ...key('WIT-ends-1', 'completed'), account: 'other' }, record);
    await inbox.process(key('WIT-ends-1', 'failed'), record);
    expect(seen).toEqual([[], [], ['rejected']]);
  });
});
