import { describe, expect, test } from 'vitest';
import { APIError, UnprocessableEntityError } from '../../../src/index.js';
import { createSandbox } from '../../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL, dealerOf, handSigned, read } from '../../helpers/sandbox.js';

const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const SECONDS = START / 1000;

/** The raw answer to a dealer POST signed by hand: the exact body of the spec's error shapes. */
async function post(sandbox: Sandbox, path: string, body: object) {
  return read(await sandbox.fetch(handSigned(`${SANDBOX_BASE_URL}/api/dealer${path}`, { ...sandbox.accounts.dealer, body: JSON.stringify(body) })));
}

async function get(sandbox: Sandbox, pathAndQuery: string) {
  return read(await sandbox.fetch(handSigned(`${SANDBOX_BASE_URL}/api/dealer${pathAndQuery}`, { ...sandbox.accounts.dealer, method: 'GET' })));
}

const code = (status: number, error: string, message: string) => ({ status, body: { success: false, error, message } });

describe('settings and E-IBANs', () => {
  test('the settings name the dealer and its payment methods', async () => {
    const dealer = dealerOf(createSandbox({ dealer: { name: 'Acme', paymentMethods: { eiban: 'inactive' } } }));
    expect(await dealer.settings.get()).toEqual({ success: true, message: 'Welcome, Acme', dealer_name: 'Acme', payment_methods: { credit_card: 'active', eiban: 'inactive', manual_iban: 'active' } });
  });

  test('two E-IBANs are listed with their balances as decimal strings', async () => {
    const { eibans, total_eibans, dealer_name } = await dealerOf(createSandbox()).eibans.list();
    expect(dealer_name).toBe('Sandbox Dealer');
    expect(total_eibans).toBe(2);
    expect(eibans.map(({ balance, available_balance, bank_name }) => ({ balance, available_balance, bank_name }))).toEqual([
      { balance: '250000.00', available_balance: '245500.00', bank_name: 'Ziraat Bankası' },
      { balance: '75000.00', available_balance: '75000.00', bank_name: 'Garanti BBVA' },
    ]);
    for (const eiban of eibans) expect(eiban.iban_no).toMatch(/^TR\d{24}$/);
  });

  test('E-IBANs given as options replace the defaults', async () => {
    const sandbox = createSandbox({ dealer: { eibans: [{ id: 7, iban: IBAN, bankName: 'Test', accountName: 'T', walletId: 'w-1', balance: 10.5 }] } });
    const { eibans } = await dealerOf(sandbox).eibans.list();
    expect(eibans).toEqual([{ id: 7, iban_no: IBAN, bank_name: 'Test', account_name: 'T', wallet_id: 'w-1', balance: '10.50', available_balance: '10.50' }]);
  });
});

describe('manual IBAN (spec 4.13)', () => {
  const sandbox = createSandbox({ startTime: START });
  const dealer = dealerOf(sandbox);
  const person = { username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz' };

  test('a deposit gets the IBAN whose bounds hold the amount, formatted in groups of four', async () => {
    const small = await dealer.manualIban.startDeposit({ ...person, amount: 500 });
    const large = await dealer.manualIban.startDeposit({ ...person, amount: 20_000 });
    expect(small.data.tracking_code).toMatch(new RegExp(`^DEP-[A-Za-z0-9]{8,}-${SECONDS}$`));
    expect(small.data).toMatchObject({ bank_name: 'Akbank', amount: 500 });
    expect(large.data.bank_name).toBe('İş Bankası');
    expect(small.data.formatted_iban).toBe(small.data.iban_no.replace(/(.{4})(?=.)/g, '$1 '));
  });

  test('an amount no IBAN accepts is refused', async () => {
    expect(await post(sandbox, '/manual-iban/deposit', { ...person, amount: 300_000 })).toEqual(
      code(422, 'No IBAN available for this amount', 'No manual IBAN of the dealer accepts 300000 TRY'),
    );
  });

  test('a withdrawal request is pending', async () => {
    const { data } = await dealer.manualIban.startWithdrawal({ username: 'ada', userid: 'u-1', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: IBAN });
    expect(data).toEqual({ tracking_code: expect.stringMatching(new RegExp(`^WDR-[A-Za-z0-9]{8,}-${SECONDS}$`)), status: 'pending', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: IBAN });
  });
});

describe('E-IBAN transactions (spec 4.13, 7.4, 8)', () => {
  const sandbox = createSandbox({ startTime: START });
  const dealer = dealerOf(sandbox);
  const wallet = async () => (await dealer.eibans.list()).eibans[0]?.wallet_id ?? '';

  test('a three-day window has several pages of 100, in date order', async () => {
    const wallet_id = await wallet();
    const first = await dealer.transactions.list({ wallet_id, start_date: '2026-01-10', end_date: '2026-01-12' });
    const { total_records, total_pages } = first.pagination;
    expect(total_records).toBeGreaterThan(200);
    expect(first.pagination).toEqual({ current_page: 1, per_page: 100, total_records, total_pages: Math.ceil(total_records / 100), has_more: true });
    expect(first.transactions).toHaveLength(100);
    expect(first).toMatchObject({ dealer_name: 'Sandbox Dealer', wallet_id, date_range: { start_date: '2026-01-10', end_date: '2026-01-12' } });
    const last = await dealer.transactions.list({ wallet_id, start_date: '2026-01-10', end_date: '2026-01-12', page: total_pages });
    expect(last.transactions).toHaveLength(total_records - 100 * (total_pages - 1));
    expect(last.pagination.has_more).toBe(false);
    const dates = first.transactions.map((transaction) => transaction.date);
    expect(dates).toEqual([...dates].sort());
    expect(dates[0]).toMatch(/^2026-01-10T\d{2}:\d{2}:\d{2}$/);
  });

  test('a page past the last is empty', async () => {
    const answer = await dealer.transactions.list({ wallet_id: await wallet(), start_date: '2026-01-10', end_date: '2026-01-10', page: 99 });
    expect(answer.transactions).toEqual([]);
    expect(answer.pagination).toMatchObject({ current_page: 99, has_more: false });
  });

  test('a range with no history is one empty page of none', async () => {
    const answer = await dealer.transactions.list({ wallet_id: await wallet(), start_date: '2030-01-01', end_date: '2030-01-02' });
    expect(answer.pagination).toEqual({ current_page: 1, per_page: 100, total_records: 0, total_pages: 0, has_more: false });
  });

  test('the iterator reads every record of ten days once, as many as day-by-day pages count', async () => {
    const wallet_id = await wallet();
    const all = await dealer.transactions.iterate({ wallet_id, start_date: '2026-01-01', end_date: '2026-01-10' }).toArray();
    let expected = 0;
    for (let day = 1; day <= 10; day++) {
      const date = `2026-01-${String(day).padStart(2, '0')}`;
      expected += (await dealer.transactions.list({ wallet_id, start_date: date, end_date: date })).pagination.total_records;
    }
    expect(all).toHaveLength(expected);
    expect(new Set(all.map((transaction) => transaction.transactionId)).size).toBe(expected);
  });

  test('the same seed gives the same history', async () => {
    const read = async (sandbox: Sandbox) => {
      const client = dealerOf(sandbox);
      const { eibans } = await client.eibans.list();
      return client.transactions.list({ wallet_id: eibans[1]?.wallet_id ?? '', start_date: '2026-01-14', end_date: '2026-01-14' });
    };
    expect(await read(createSandbox({ startTime: START, seed: 'x' }))).toEqual(await read(createSandbox({ startTime: START, seed: 'x' })));
    expect(await read(createSandbox({ startTime: START, seed: 'x' }))).not.toEqual(await read(createSandbox({ startTime: START, seed: 'y' })));
  });

  test('a wallet of no E-IBAN of the dealer is WALLET_NOT_ASSIGNED', async () => {
    expect(await get(sandbox, '/transactions?wallet_id=wallet_other&start_date=2026-01-10&end_date=2026-01-11')).toEqual(
      code(400, 'WALLET_NOT_ASSIGNED', 'Wallet wallet_other is not assigned to this dealer'),
    );
  });

  test('an end date before the start date is INVALID_DATE_RANGE', async () => {
    const answer = await get(sandbox, `/transactions?wallet_id=${await wallet()}&start_date=2026-01-10&end_date=2026-01-09`);
    expect(answer).toEqual(code(400, 'INVALID_DATE_RANGE', 'end_date must not be before start_date'));
  });

  test('a range longer than 3 days is DATE_RANGE_EXCEEDED; exactly 3 days after the start is accepted', async () => {
    const wallet_id = await wallet();
    const answer = await get(sandbox, `/transactions?wallet_id=${wallet_id}&start_date=2026-01-01&end_date=2026-01-05`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: 'DATE_RANGE_EXCEEDED' });
    expect((await get(sandbox, `/transactions?wallet_id=${wallet_id}&start_date=2026-01-01&end_date=2026-01-04`)).status).toBe(200);
  });

  test('the SDK reads the code from the answer', async () => {
    const error = await dealer.transactions.list({ wallet_id: 'nope', start_date: '2026-01-10', end_date: '2026-01-10' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).code).toBe('WALLET_NOT_ASSIGNED');
  });
});

describe('send money and transfer status (spec 4.13, 7.4)', () => {
  const transfer = { recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 1500.25, description: 'Payout 42' };
  const setup = async () => {
    const sandbox = createSandbox({ startTime: START });
    const dealer = dealerOf(sandbox);
    const { eibans } = await dealer.eibans.list();
    const walletId = eibans[1]?.wallet_id ?? '';
    const balances = async () => {
      const account = (await dealer.eibans.list()).eibans[1];
      return { balance: account?.balance, available: account?.available_balance };
    };
    return { sandbox, dealer, walletId, balances };
  };

  test('a transfer starts pending and holds its amount out of the available balance', async () => {
    const { dealer, walletId, balances } = await setup();
    const answer = await dealer.transfers.send({ wallet_id: walletId, ...transfer });
    expect(answer).toEqual({
      success: true,
      message: 'Transfer started',
      transfer: { transfer_id: expect.stringMatching(/^TRF-[A-Za-z0-9]+$/), status: 'pending', amount: '1500.25', recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', created_at: '2026-01-15T09:00:00' },
    });
    expect(await balances()).toEqual({ balance: '75000.00', available: '73499.75' });
    const status = await dealer.transfers.getStatus({ transfer_id: answer.transfer.transfer_id });
    expect(status).toEqual({
      success: true,
      dealer_name: 'Sandbox Dealer',
      transfer: { ...answer.transfer, description: 'Payout 42', completed_at: undefined },
    });
  });

  test('completing a transfer takes it from the balance; failing or cancelling gives the amount back', async () => {
    const { sandbox, dealer, walletId, balances } = await setup();
    const completed = await dealer.transfers.send({ wallet_id: walletId, ...transfer });
    await sandbox.settle(completed.transfer.transfer_id, 'completed');
    expect(await balances()).toEqual({ balance: '73499.75', available: '73499.75' });
    const status = await dealer.transfers.getStatus({ transfer_id: completed.transfer.transfer_id });
    expect(status.transfer).toMatchObject({ status: 'completed', completed_at: '2026-01-15T09:00:00' });

    for (const end of ['failed', 'cancelled']) {
      const { transfer: started } = await dealer.transfers.send({ wallet_id: walletId, ...transfer });
      await sandbox.settle(started.transfer_id, end);
      expect(await balances()).toEqual({ balance: '73499.75', available: '73499.75' });
    }
  });

  test('a transfer shows in the wallet transactions as outgoing', async () => {
    const { dealer, walletId } = await setup();
    const { transfer: sent } = await dealer.transfers.send({ wallet_id: walletId, ...transfer });
    const list = await dealer.transactions.iterate({ wallet_id: walletId, start_date: '2026-01-15', end_date: '2026-01-15' }).toArray();
    expect(list.filter((transaction) => transaction.type === 'outgoing')).toEqual([
      { transactionId: expect.any(String), amount: '1500.25', type: 'outgoing', description: 'Payout 42', senderName: 'Sandbox Dealer Ltd.', senderIban: expect.any(String), date: sent.created_at },
    ]);
  });

  test('the whole available balance may be sent, a kuruş more is INSUFFICIENT_BALANCE', async () => {
    const { sandbox, dealer, walletId } = await setup();
    expect(await post(sandbox, '/send-money', { wallet_id: walletId, ...transfer, amount: 75_000.01 })).toEqual(
      code(400, 'INSUFFICIENT_BALANCE', `Wallet ${walletId} has 75000.00 TRY available, less than 75000.01`),
    );
    await expect(dealer.transfers.send({ wallet_id: walletId, ...transfer, amount: 75_000 })).resolves.toMatchObject({ success: true });
  });

  test('an amount below 10.00 is MIN_AMOUNT_ERROR', async () => {
    const { sandbox, walletId } = await setup();
    expect(await post(sandbox, '/send-money', { wallet_id: walletId, ...transfer, amount: 9.99 })).toEqual(code(400, 'MIN_AMOUNT_ERROR', 'amount must be at least 10'));
  });

  test.each([
    ['too short', 'TR3300061005'],
    ['with a wrong check digit', 'TR330006100519786457841327'],
  ])('a recipient IBAN %s is INVALID_IBAN', async (_label, iban) => {
    const { sandbox, walletId } = await setup();
    const answer = await post(sandbox, '/send-money', { wallet_id: walletId, ...transfer, recipient_iban: iban });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: 'INVALID_IBAN' });
  });

  test('a missing recipient IBAN is the validation error of 7.2, not a code', async () => {
    const { sandbox, walletId } = await setup();
    expect(await post(sandbox, '/send-money', { wallet_id: walletId, recipient_name: 'Ada', amount: 50 })).toEqual({
      status: 422,
      body: { success: false, error: 'Doğrulama hatası', messages: ['recipient_iban is required'] },
    });
  });

  test('a wallet of no E-IBAN of the dealer is WALLET_NOT_ASSIGNED, and nothing moves', async () => {
    const { sandbox, balances } = await setup();
    expect(await post(sandbox, '/send-money', { wallet_id: 'wallet_other', ...transfer })).toEqual(code(400, 'WALLET_NOT_ASSIGNED', 'Wallet wallet_other is not assigned to this dealer'));
    expect(await balances()).toEqual({ balance: '75000.00', available: '75000.00' });
    expect(sandbox.records()).toEqual([]);
  });

  test('an unknown transfer id is 404', async () => {
    const { sandbox } = await setup();
    expect(await get(sandbox, '/transfer-status?transfer_id=TRF-unknown')).toEqual(code(404, 'Transfer not found', 'No transfer has the id TRF-unknown'));
  });

  test('with transferCompletionSeconds, a transfer completes by itself once the record clock passes it', async () => {
    const sandbox = createSandbox({ startTime: START, transferCompletionSeconds: 60 });
    const dealer = dealerOf(sandbox);
    const walletId = (await dealer.eibans.list()).eibans[0]?.wallet_id ?? '';
    const { transfer: sent } = await dealer.transfers.send({ wallet_id: walletId, ...transfer });
    await sandbox.clock.advance(59_000);
    expect((await dealer.transfers.getStatus({ transfer_id: sent.transfer_id })).transfer.status).toBe('pending');
    await sandbox.clock.advance(1_000);
    expect((await dealer.transfers.getStatus({ transfer_id: sent.transfer_id })).transfer).toMatchObject({ status: 'completed', completed_at: '2026-01-15T09:01:00' });
  });
});

describe('dealer card payments', () => {
  const card = { username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.test', phone: '+905550000000', amount: 200 };

  test('a payment of 200 TRY is created pending', async () => {
    const sandbox = createSandbox({ startTime: START });
    const { data } = await dealerOf(sandbox).creditCard.createPayment(card);
    expect(data).toEqual({ tracking_code: expect.stringMatching(new RegExp(`^CC-[A-Za-z0-9]{8,}-${SECONDS}$`)), payment_url: expect.any(String), order_id: expect.any(String), amount: 200, currency: 'TRY' });
    expect(sandbox.record(data.tracking_code)).toMatchObject({ kind: 'dealerCardPayment', status: 'pending' });
  });

  test('an amount below 200 is a validation error', async () => {
    const sandbox = createSandbox();
    const answer = await post(sandbox, '/credit-card/payment', { ...card, amount: 199.99 });
    expect(answer).toEqual({ status: 422, body: { success: false, error: 'Doğrulama hatası', messages: ['amount must be at least 200'] } });
  });

  test('a dealer without card payments refuses them with the card error shape', async () => {
    const sandbox = createSandbox({ dealer: { paymentMethods: { credit_card: 'inactive' } } });
    expect(await post(sandbox, '/credit-card/payment', card)).toEqual({ status: 403, body: { success: false, message: 'Credit card payment is not enabled for this dealer' } });
    const error = await dealerOf(sandbox).creditCard.createPayment(card).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(UnprocessableEntityError);
  });
});
