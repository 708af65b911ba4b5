import { afterEach, describe, expect, test } from 'vitest';
import { ProviderClient, verifyCallback } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox } from '../../src/tools/sandbox/index.js';
import { customer, rawRequest, startReceiver } from '../helpers/sandbox.js';
import type { TestReceiver } from '../helpers/sandbox.js';

/*
 * The payment page at a record's payment_url, over real sockets, as a browser and as
 * an attacker's page would reach it. test/sandbox/browser.test.ts clicks it in Chromium.
 */

let running: RunningSandbox | undefined;
let receiver: TestReceiver | undefined;
afterEach(async () => {
  await running?.close();
  await receiver?.close();
  running = undefined;
  receiver = undefined;
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function setUp(options: Parameters<typeof createSandbox>[0] = {}, person: { fullname: string; username: string; user_id: string } = customer) {
  receiver = await startReceiver([200]);
  const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url, creditCard: receiver.url }, ...options });
  running = await sandbox.listen({ port: 0 });
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  const provider = new ProviderClient({ baseUrl: running.url, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 });
  const { data } = await provider.manual.startDeposit({ ...person, amount: 250 });
  const page = new URL(data.payment_url);
  return { sandbox, provider, url: running.url, id: data.tracking_code, path: page.pathname, host: page.host };
}

async function open(url: string, path: string) {
  const answer = await rawRequest(url, path, { headers: { Accept: BROWSER } });
  const token = /name="token" value="([0-9a-f]+)"/.exec(answer.text)?.[1] ?? '';
  return { ...answer, token };
}

function post(url: string, path: string, host: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return rawRequest(url, path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('the payment page', () => {
  test('a browser gets HTML: amount to change, then the bank details, then the outcome buttons; API clients still get JSON', async () => {
    const { url, path, id } = await setUp();
    const page = await open(url, path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).toMatch(/<input id="amount" name="amount" type="number"[^>]*value="250"/);
    const iban = /IBAN<\/dt><dd class="mono">([A-Z0-9 ]+)</.exec(page.text)?.[1];
    expect(iban?.replace(/ /g, '')).toMatch(/^TR\d{24}$/);
    expect(page.text.indexOf('name="amount"')).toBeLessThan(page.text.indexOf('Bank details'));
    for (const label of ['Complete payment', 'Cancel', 'Expire']) expect(page.text).toContain(`>${label}</button>`);
    expect(page.text).toContain(id);
    expect(page.text).not.toMatch(/<script|src="http|href="http/);

    const api = await rawRequest(url, path, { headers: { Accept: 'application/json' } });
    expect(api.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(api.text)).toMatchObject({ success: true, record: { id, status: 'showing' } });
    expect(JSON.parse((await rawRequest(url, path)).text)).toMatchObject({ record: { id } });
  });

  test('every value is escaped', async () => {
    const { url, path } = await setUp({}, { fullname: '<script>alert("x")</script>', username: "o'neil", user_id: 'u-1' });
    const page = await open(url, path);
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;');
  });

  test('Complete with a changed amount settles the record, delivers a verified callback with that amount, and shows the result', async () => {
    const { sandbox, url, path, host, id } = await setUp();
    const { token } = await open(url, path);
    const answer = await post(url, path, host, { token, action: 'completed', amount: '240.50' });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toMatch(new RegExp(`^${path}\\?done=completed&delivery=dlv_1$`));
    expect(sandbox.record(id)).toMatchObject({ status: 'completed', amount: 240.5 });
    const [callback] = receiver?.received ?? [];
    const { apiKey, secretKey } = sandbox.accounts.provider;
    expect(verifyCallback({ headers: callback?.headers ?? {}, body: callback?.body ?? '' }, { apiKey, secretKey }).payload).toMatchObject({ tracking_code: id, status: 'completed', amount: 240.5 });

    const after = await open(url, String(answer.headers.location));
    expect(after.text).toContain('Payment completed. Callback <code>dlv_1</code> delivered to');
    expect(after.text).toContain('HTTP 200 after 1 attempt.');
    expect(after.text).toContain('no further move is allowed');
    expect(after.text).toContain('Redeliver, original signature');
  });

  test('the redeliver buttons send the callback again, with its original signature or afresh', async () => {
    const { url, path, host } = await setUp();
    const { token } = await open(url, path);
    await post(url, path, host, { token, action: 'completed' });
    const again = await post(url, path, host, { token, action: 'redeliver', delivery: 'dlv_1', resign: 'false' });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(`${path}?done=redeliver&delivery=dlv_2`);
    const [first, second] = receiver?.received ?? [];
    expect([second?.headers['x-hash'], second?.body]).toEqual([first?.headers['x-hash'], first?.body]);
    expect((await open(url, String(again.headers.location))).text).toContain('Callback sent again. Callback <code>dlv_2</code> delivered');
  });

  test('with no callback URL configured, the page and the settle control both say that is why no callback was delivered', async () => {
    const { url, path, host, provider } = await setUp({ callbackUrls: {} });
    const { token } = await open(url, path);
    const answer = await post(url, path, host, { token, action: 'completed' });
    expect(answer.headers.location).toBe(`${path}?done=completed`);
    const after = await open(url, String(answer.headers.location));
    expect(after.text).toContain('Payment completed. No callback was delivered: no callback URL is configured for deposit callbacks (--callback deposit=&#60;url&#62;, or PUT /__sandbox/callback-urls).');
    expect(after.text).not.toContain('sends none');

    const { data } = await provider.manual.startDeposit({ ...customer, amount: 250 });
    const settled = await rawRequest(url, '/__sandbox/settle', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: data.tracking_code, status: 'completed' }) });
    expect(JSON.parse(settled.text)).toMatchObject({ success: true, record: { status: 'completed' }, note: 'No callback was delivered: no callback URL is configured for deposit callbacks (--callback deposit=<url>, or PUT /__sandbox/callback-urls).' });
  });

  test('a move whose status sends no callback says so, and a delivered one carries no note', async () => {
    const { sandbox, provider, url } = await setUp();
    const { username, user_id } = customer;
    const { data } = await provider.creditCard.createPayment({ credential_key: sandbox.accounts.provider.sites[0].credentialKey, username, user_id, firstname: 'Ada', lastname: 'Yılmaz', amount: 99 });
    const settle = async (status: string) => JSON.parse((await rawRequest(url, '/__sandbox/settle', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: data.tracking_code, status }) })).text) as Record<string, unknown>;
    const paid = await settle('success');
    expect(paid).toMatchObject({ callback: { delivered: true } });
    expect(paid).not.toHaveProperty('note');
    expect(await settle('refunded')).toMatchObject({ note: 'No callback was delivered: status refunded of this record sends no callback (spec 6.1).' });
  });

  test('a refused move shows a 409 page with the reason and a way back', async () => {
    const { url, path, host } = await setUp();
    const { token } = await open(url, path);
    await post(url, path, host, { token, action: 'canceled' });
    const twice = await post(url, path, host, { token, action: 'completed' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('section 3 lets it move to no other status');
    expect(twice.text).toContain(`href="${path}"`);
  });

  test('a card payment has its own buttons and no bank details', async () => {
    const { sandbox, provider, url } = await setUp();
    const { username, user_id } = customer;
    const { data } = await provider.creditCard.createPayment({ credential_key: sandbox.accounts.provider.sites[0].credentialKey, username, user_id, firstname: 'Ada', lastname: 'Yılmaz', amount: 99 });
    const page = await open(url, new URL(data.payment_url).pathname);
    for (const label of ['Pay', 'Fail', 'Cancel']) expect(page.text).toContain(`>${label}</button>`);
    expect(page.text).not.toContain('Bank details');
    expect(page.text).not.toContain('name="amount"');
  });
});

describe("the page's forms answer only to the page", () => {
  test.each([
    ['no token', (_token: string) => ({ fields: { action: 'completed' }, headers: {} }), /token is missing or wrong/],
    ['a wrong token', (token: string) => ({ fields: { token: token.replace(/.$/, (c) => (c === '0' ? '1' : '0')), action: 'completed' }, headers: {} }), /token is missing or wrong/],
    ['a foreign Origin', (token: string) => ({ fields: { token, action: 'completed' }, headers: { Origin: 'https://attacker.example' } }), /own origin only/],
    ['Origin null', (token: string) => ({ fields: { token, action: 'completed' }, headers: { Origin: 'null' } }), /own origin only/],
    ['Sec-Fetch-Site cross-site', (token: string) => ({ fields: { token, action: 'completed' }, headers: { 'Sec-Fetch-Site': 'cross-site' } }), /not from a cross-site page/],
    ['Sec-Fetch-Site same-site', (token: string) => ({ fields: { token, action: 'completed' }, headers: { 'Sec-Fetch-Site': 'same-site' } }), /not from a same-site page/],
    ['a text/plain body', (token: string) => ({ fields: { token, action: 'completed' }, headers: { 'Content-Type': 'text/plain' } }), /form-urlencoded forms only/],
  ])('a form post with %s is refused 403 and settles nothing', async (_, make, message) => {
    const { sandbox, url, path, host, id } = await setUp();
    const { token } = await open(url, path);
    const { fields, headers } = make(token);
    const answer = await post(url, path, host, fields, headers);
    expect(answer.status).toBe(403);
    expect(answer.text).toMatch(message);
    expect(sandbox.record(id)?.status).toBe('showing');
    expect(receiver?.received).toHaveLength(0);
  });

  test('a page fetched through a rebound host name is refused, so its token cannot be read', async () => {
    const { url, path } = await setUp();
    const answer = await rawRequest(url, path, { headers: { Accept: BROWSER, Host: `attacker.example:${new URL(url).port}` } });
    expect(answer.status).toBe(403);
    expect(answer.text).not.toMatch(/name="token"/);
  });

  test('each sandbox has its own random token, not derived from the seed', async () => {
    const one = await setUp({ seed: 'same' });
    const first = (await open(one.url, one.path)).token;
    await running?.close();
    await receiver?.close();
    const two = await setUp({ seed: 'same' });
    const second = (await open(two.url, two.path)).token;
    expect(first).toMatch(/^[0-9a-f]{48}$/);
    expect(second).not.toBe(first);
  });
});

describe('in process (sandbox.handle), where no browser sits in between', () => {
  test('the page and its forms work without a Host check; the token is still required', async () => {
    const sandbox = createSandbox();
    const { apiKey, secretKey, sites } = sandbox.accounts.provider;
    const provider = new ProviderClient({ baseUrl: 'https://sandbox.payorch.test', apiKey, secretKey, credentialKey: sites[0].credentialKey, fetch: sandbox.fetch, maxRetries: 0 });
    const { data } = await provider.manual.startDeposit({ ...customer, amount: 250 });
    const html = await (await sandbox.handle(new Request(data.payment_url, { headers: { Accept: BROWSER } }))).text();
    const token = /name="token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    const form = (fields: Record<string, string>) => new Request(data.payment_url, { method: 'POST', body: new URLSearchParams(fields) });
    expect((await sandbox.handle(form({ action: 'completed' }))).status).toBe(403);
    const answer = await sandbox.handle(form({ token, action: 'canceled' }));
    expect(answer.status).toBe(303);
    expect(sandbox.record(data.tracking_code)?.status).toBe('canceled');
  });
});
