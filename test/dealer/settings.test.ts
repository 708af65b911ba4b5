import { describe, expect, test } from 'vitest';
import { DealerClient, ResponseValidationError } from '../../src/index.js';
import { DEALER_URL, settingsAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });

describe('dealer.settings.get', () => {
  test('GETs /api/dealer/settings with no query and no body, signed with the basic hash', async () => {
    const seen = capture('get', `${DEALER_URL}/settings`, settingsAnswer);
    const result = await dealer.settings.get();

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('GET');
    expect(request.url.href).toBe(`${DEALER_URL}/settings`);
    expectSigned(request, DEALER);
    expect(request.headers.has('x-key')).toBe(false);
    expect(request.headers.has('x-credential-key')).toBe(false);
    expect(request.body).toBe('');
    expect(result).toEqual(settingsAnswer);
  });

  test('returns the payment method states, a state the spec does not show, and fields it does not list', async () => {
    capture('get', `${DEALER_URL}/settings`, { ...settingsAnswer, payment_methods: { ...settingsAnswer.payment_methods, eiban: 'suspended', crypto: 'active' }, region: 'TR' });
    const result = await dealer.settings.get();
    expect(result.dealer_name).toBe('Demo Dealer');
    expect(result.payment_methods.manual_iban).toBe('inactive');
    expect(result.payment_methods.eiban).toBe('suspended');
    // Unlisted fields are kept and read through Record<string, unknown>, the documented way.
    const methods: Readonly<Record<string, unknown>> = result.payment_methods;
    const top: Readonly<Record<string, unknown>> = result;
    expect(methods['crypto']).toBe('active');
    expect(top['region']).toBe('TR');
  });

  test('fails with ResponseValidationError, keeping the raw body, when payment_methods is missing', async () => {
    const withoutMethods = { success: true, message: settingsAnswer.message, dealer_name: settingsAnswer.dealer_name };
    capture('get', `${DEALER_URL}/settings`, withoutMethods);
    const error = await dealer.settings.get().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const invalid = error as ResponseValidationError;
    expect(invalid.issues.map((issue) => issue.field)).toEqual(['payment_methods']);
    expect(JSON.parse(invalid.rawBody)).toEqual(withoutMethods);
  });

  test('is retried after a 503, since reading twice moves no money', async () => {
    const seen = capture('get', `${DEALER_URL}/settings`, (attempt) => (attempt === 1 ? Response.json({ success: false }, { status: 503 }) : settingsAnswer));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 1 });
    await expect(retrying.settings.get()).resolves.toEqual(settingsAnswer);
    expect(seen).toHaveLength(2);
  });
});
