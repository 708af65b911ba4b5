import { describe, expect, test } from 'vitest';
import { APIError, UnprocessableEntityError } from '../../../src/index.js';
import { createSandbox } from '../../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL, customer, handSigned, providerOf, read } from '../../helpers/sandbox.js';

// A pinned start freezes the record clock: every time below is exact.
const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const SECONDS = START / 1000;
const sandbox = createSandbox({ startTime: START });
const provider = providerOf(sandbox);
const { sites } = sandbox.accounts.provider;
const [site] = sites;
const siteRef = { id: site.id, name: site.name };
const code = (prefix: string) => new RegExp(`^${prefix}-[A-Za-z0-9]{8,}-${SECONDS}$`);
const keys = (value: object) => Object.keys(value).sort();

describe('account endpoints', () => {
  test('welcome names the provider and dates the answer', async () => {
    const answer = await provider.welcome();
    expect(answer).toMatchObject({ success: true, message: 'Welcome, Sandbox Provider', provider: { name: 'Sandbox Provider', is_active: true }, timestamp: '2026-01-15 09:00:00' });
    expect(keys(answer)).toEqual(['info', 'message', 'next_step', 'provider', 'success', 'timestamp']);
  });

  test('the site list has both sites with their creation dates', async () => {
    const answer = await provider.sites.list({ key: sandbox.accounts.provider.key });
    expect(answer.total_sites).toBe(2);
    expect(answer.sites).toEqual([
      { id: site.id, name: 'Sandbox Store', is_active: true, created_at: '2025-12-16 09:00:00' },
      { id: site.id + 1, name: 'Sandbox Market', is_active: true, created_at: '2025-11-16 09:00:00' },
    ]);
  });
});

describe('manual and E-IBAN records (spec 4.5 to 4.7)', () => {
  test('a manual deposit is showing, with a payment page and 30 minutes to live', async () => {
    const { data, timestamp } = await provider.manual.startDeposit({ ...customer, amount: 250 });
    expect(data.tracking_code).toMatch(code('MAN'));
    expect(data).toEqual({
      tracking_code: data.tracking_code,
      payment_url: `${SANDBOX_BASE_URL}/__sandbox/records/${data.tracking_code}`,
      site: siteRef,
      customer,
      amount: 250,
      status: 'showing',
      expires_at: '2026-01-15 09:30:00',
      created_at: '2026-01-15 09:00:00',
    });
    expect(timestamp).toBe('2026-01-15 09:00:00');
  });

  test('a manual withdrawal is pending, echoes the IBAN and has no payment page', async () => {
    const { data } = await provider.manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 });
    expect(data.tracking_code).toMatch(code('WIT'));
    expect(data).toEqual({ tracking_code: data.tracking_code, site: siteRef, customer, iban: IBAN, amount: 100, status: 'pending', created_at: '2026-01-15 09:00:00' });
  });

  test('an E-IBAN deposit has the fields of 4.7 and no timestamp', async () => {
    const answer = await provider.eiban.startDeposit({ ...customer, amount: 500 });
    expect(answer.data.tracking_code).toMatch(code('EIBAN'));
    expect(keys(answer)).toEqual(['data', 'message', 'success']);
    expect(keys(answer.data)).toEqual(['amount', 'customer', 'expires_at', 'payment_url', 'site', 'status', 'tracking_code']);
    expect(answer.data.status).toBe('showing');
  });

  test('an E-IBAN withdrawal is pending with the EIBAN-WIT prefix', async () => {
    const { data } = await provider.eiban.startWithdrawal({ ...customer, iban: IBAN, amount: 100 });
    expect(data.tracking_code).toMatch(code('EIBAN-WIT'));
    expect(data).toEqual({ tracking_code: data.tracking_code, site: siteRef, customer, iban: IBAN, amount: 100, status: 'pending' });
  });

  test('a record belongs to the site whose credential key made it', async () => {
    const other = sites[1];
    if (other === undefined) throw new Error('two sites expected');
    const { data } = await provider.withSite(other.credentialKey).manual.startDeposit({ ...customer, amount: 10 });
    expect(data.site).toEqual({ id: other.id, name: other.name });
    expect(sandbox.record(data.tracking_code)?.siteId).toBe(other.id);
  });
});

describe('card payments (spec 4.8, 4.9)', () => {
  const card = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 };

  test('a payment is created pending with an order id, and its status reads back', async () => {
    const { data } = await provider.creditCard.createPayment(card);
    expect(data.tracking_code).toMatch(code('CC'));
    expect(data).toEqual({ tracking_code: data.tracking_code, payment_url: `${SANDBOX_BASE_URL}/__sandbox/records/${data.tracking_code}`, order_id: expect.stringMatching(/^ORD\d{12}$/), amount: 150, currency: 'TRY' });
    const status = await provider.creditCard.getStatus({ tracking_code: data.tracking_code });
    expect(status.data).toEqual({
      tracking_code: data.tracking_code,
      order_id: data.order_id,
      status: 'pending',
      amount: 150,
      currency: 'TRY',
      username: 'ada',
      user_id: 'u-1',
      created_at: '2026-01-15T09:00:00+00:00',
      updated_at: '2026-01-15T09:00:00+00:00',
    });
  });

  test('the credential key in the body decides the site', async () => {
    const other = sites[1];
    if (other === undefined) throw new Error('two sites expected');
    const { data } = await provider.creditCard.createPayment({ ...card, credential_key: other.credentialKey });
    expect(sandbox.record(data.tracking_code)?.siteId).toBe(other.id);
  });

  /** The card error shape of 7.2: a message only. */
  async function cardRefusal(local = sandbox, body: object = { ...card, credential_key: sites[0].credentialKey }) {
    const request = handSigned(`${SANDBOX_BASE_URL}/api/provider/credit-card/payment`, { ...local.accounts.provider, body: JSON.stringify(body) });
    return read(await local.fetch(request));
  }

  test('an unknown credential key is "Invalid credential key"', async () => {
    expect(await cardRefusal(sandbox, { ...card, credential_key: 'site_cred_foreign' })).toEqual({ status: 403, body: { success: false, message: 'Invalid credential key' } });
  });

  test('a dealer without card payments refuses them', async () => {
    const local = createSandbox({ dealer: { paymentMethods: { credit_card: 'inactive' } } });
    expect(await cardRefusal(local, { ...card, credential_key: local.accounts.provider.sites[0].credentialKey })).toEqual({
      status: 403,
      body: { success: false, message: 'Credit card payment is not enabled for this dealer' },
    });
  });

  test('a blocked customer is refused, and the SDK reports the message', async () => {
    const local = createSandbox({ provider: { blockedUserIds: ['u-1'] } });
    expect(await cardRefusal(local, { ...card, credential_key: local.accounts.provider.sites[0].credentialKey })).toEqual({
      status: 403,
      body: { success: false, message: 'This customer is blocked. Payment not allowed.' },
    });
    const error = await providerOf(local).creditCard.createPayment(card).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toMatch(/^This customer is blocked\. Payment not allowed\./);
  });

  test('the status of an unknown payment is 404 "Payment not found"', async () => {
    const request = handSigned(`${SANDBOX_BASE_URL}/api/provider/credit-card/status`, { ...sandbox.accounts.provider, body: JSON.stringify({ tracking_code: 'CC-nope0000-1768467600' }) });
    expect(await read(await sandbox.fetch(request))).toEqual({ status: 404, body: { success: false, message: 'Payment not found' } });
  });

  test('a dealer card payment is not readable through the provider status', async () => {
    const local = createSandbox();
    const dealerCard = await local.fetch(
      handSigned(`${SANDBOX_BASE_URL}/api/dealer/credit-card/payment`, {
        ...local.accounts.dealer,
        body: JSON.stringify({ username: 'a', firstname: 'A', lastname: 'B', email: 'a@b.test', phone: '5550000000', amount: 200 }),
      }),
    );
    const { data } = (await dealerCard.json()) as { data: { tracking_code: string } };
    const error = await providerOf(local).creditCard.getStatus({ tracking_code: data.tracking_code }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
  });
});

describe('third-party channels (spec 4.10 to 4.12)', () => {
  test('a bank deposit echoes site and customer and is dated', async () => {
    const answer = await provider.thirdParty.bank.startDeposit({ ...customer, amount: 300 });
    expect(answer.data.tracking_code).toMatch(code('TPBD'));
    expect(answer.data).toMatchObject({ type: 'third_party_bank_deposit', payment_method: 'bank', site: siteRef, customer, status: 'showing', expires_at: '2026-01-15 09:30:00', created_at: '2026-01-15 09:00:00' });
    expect(answer.timestamp).toBe('2026-01-15 09:00:00');
  });

  test('a crypto deposit carries no site or customer, but expires_at', async () => {
    const { data } = await provider.thirdParty.crypto.startDeposit({ ...customer, amount: 300 });
    expect(data.tracking_code).toMatch(code('TPCD'));
    expect(keys(data)).toEqual(['amount', 'expires_at', 'payment_method', 'payment_url', 'status', 'tracking_code', 'type']);
  });

  test('a wallet deposit carries neither expires_at nor site', async () => {
    const { data } = await provider.thirdParty.wallet.startDeposit({ ...customer, amount: 300 });
    expect(data.tracking_code).toMatch(code('TPWD'));
    expect(keys(data)).toEqual(['amount', 'payment_method', 'payment_url', 'status', 'tracking_code', 'type']);
  });

  test('each channel lists its gateways with bounds and required fields', async () => {
    const bank = await provider.thirdParty.bank.gateways.list();
    const crypto = await provider.thirdParty.crypto.gateways.list();
    const wallet = await provider.thirdParty.wallet.gateways.list();
    expect(bank.data.count).toBe(2);
    expect(bank.data.gateways[0]).toEqual({ id: 1, name: 'Havale Express', code: 'havale_express', min_amount: 100, max_amount: 50_000, required_fields: ['iban', 'account_holder'], description: 'Bank transfer, same day' });
    expect(crypto.data.gateways[0]?.supported_crypto_types).toEqual(['BTC', 'ETH', 'USDT (TRC20)', 'USDT (ERC20)']);
    expect(wallet.data.gateways.map((gateway) => gateway.required_fields)).toEqual([['wallet_number'], ['wallet_number', 'account_holder']]);
  });

  test('withdrawals start showing, with the fields of each channel', async () => {
    const bank = await provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 100, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' });
    const crypto = await provider.thirdParty.crypto.startWithdrawal({ ...customer, amount: 50, gateway_id: 11, crypto_type: 'USDT (TRC20)', wallet_address: 'TXYZ' });
    const wallet = await provider.thirdParty.wallet.startWithdrawal({ ...customer, amount: 25, gateway_id: 21, wallet_number: '1234567890' });
    expect(bank.data.tracking_code).toMatch(code('TPBW'));
    expect(bank.data).toMatchObject({ type: 'third_party_bank_withdrawal', payment_method: 'bank', site: siteRef, customer, status: 'showing', expires_at: '2026-01-15 09:30:00' });
    expect(crypto.data.tracking_code).toMatch(code('TPCW'));
    expect(keys(crypto.data)).toEqual(['amount', 'payment_method', 'status', 'tracking_code', 'type']);
    expect(wallet.data.tracking_code).toMatch(code('TPWW'));
    expect(wallet.data).toMatchObject({ type: 'third_party_wallet_withdrawal', status: 'showing', amount: 25 });
  });

  test('the gateway bounds are inclusive', async () => {
    await expect(provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 50_000, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' })).resolves.toMatchObject({ success: true });
    await expect(provider.thirdParty.wallet.startWithdrawal({ ...customer, amount: 20, gateway_id: 22, wallet_number: '1', account_holder: 'Ada' })).resolves.toMatchObject({ success: true });
  });

  const refusedWith = async (promise: Promise<unknown>) => {
    const error = await promise.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    return (error as UnprocessableEntityError).messages;
  };

  test('an amount outside the gateway bounds is refused, below and above', async () => {
    expect(await refusedWith(provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 99.99, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' }))).toEqual(['amount must be between 100 and 50000 for gateway havale_express']);
    expect(await refusedWith(provider.thirdParty.crypto.startWithdrawal({ ...customer, amount: 100_001, gateway_id: 11, crypto_type: 'BTC', wallet_address: 'bc1q' }))).toEqual([
      'amount must be between 50 and 100000 for gateway coingate',
    ]);
  });

  test('a gateway of another channel is unknown to this one', async () => {
    expect(await refusedWith(provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 100, gateway_id: 21, iban: IBAN }))).toEqual(['gateway_id 21 is not a bank gateway']);
  });

  test('a required field the gateway lists must be present', async () => {
    expect(await refusedWith(provider.thirdParty.wallet.startWithdrawal({ ...customer, amount: 100, gateway_id: 22, wallet_number: '1' }))).toEqual(['account_holder is required by gateway paycell']);
    expect(await refusedWith(provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 100, gateway_id: 2, iban: IBAN }))).toEqual(['account_holder is required by gateway fast']);
  });

  test('a crypto type the gateway does not support is refused', async () => {
    expect(await refusedWith(provider.thirdParty.crypto.startWithdrawal({ ...customer, amount: 100, gateway_id: 11, crypto_type: 'DOGE', wallet_address: 'D' }))).toEqual([
      'crypto_type must be one of BTC, ETH, USDT (TRC20), USDT (ERC20)',
    ]);
  });

  test('a refused withdrawal creates no record', async () => {
    const local = createSandbox();
    await providerOf(local).thirdParty.bank.startWithdrawal({ ...customer, amount: 1, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' }).catch(() => undefined);
    expect(local.records()).toEqual([]);
  });

  test('gateways given as options replace the defaults', async () => {
    const local = createSandbox({ gateways: { wallet: [{ id: 99, name: 'Test', code: 'test', min_amount: 1, max_amount: 2, required_fields: [], description: '' }] } });
    const { data } = await providerOf(local).thirdParty.wallet.gateways.list();
    expect(data.gateways.map((gateway) => gateway.id)).toEqual([99]);
    expect((await providerOf(local).thirdParty.bank.gateways.list()).data.count).toBe(2);
  });
});
