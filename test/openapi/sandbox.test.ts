import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// The named export: under NodeNext the default import of this CommonJS file is its namespace.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { API_ENDPOINTS, endpointPath, operationId } from '../../src/tools/registry/index.js';
import type { ApiEndpoint } from '../../src/tools/registry/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { DEALER_CALLS, PROVIDER_CALLS, rowOf, withValues } from '../helpers/api-calls.js';
import type { ApiCall } from '../helpers/api-calls.js';
import { SANDBOX_BASE_URL, handSigned } from '../helpers/sandbox.js';

/*
 * docs/openapi.json against the package's own sandbox: every operation of both clients, its
 * answers and at least one refusal each, validated with Ajv (JSON Schema 2020-12) against the
 * response the document declares for that status. What a validating proxy (Prism) in front of
 * the sandbox would check.
 */

const document = JSON.parse(readFileSync(fileURLToPath(new URL('../../docs/openapi.json', import.meta.url)), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(document, 'openapi');
const pointer = (...segments: string[]) => segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** One answer the sandbox gave, as it came over the wire. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
}

/** The response the document declares for an answer: its status, else its class (4XX), else default. */
function declared(seen: Seen): string {
  const responses = document.paths[seen.path]?.[seen.method.toLowerCase()]?.responses ?? {};
  const status = String(seen.status);
  const range = `${status[0] ?? ''}XX`;
  return status in responses ? status : range in responses ? range : 'default';
}

/** Ajv's complaints about an answer, against the response the document declares for it. */
function violations(seen: Seen): string[] {
  const where = `openapi#/${pointer('paths', seen.path, seen.method.toLowerCase(), 'responses', declared(seen), 'content', 'application/json', 'schema')}`;
  const validate = ajv.getSchema(where);
  if (validate === undefined) return [`${seen.method} ${seen.path} ${seen.status}: the document declares no schema at ${where}`];
  return validate(seen.body) ? [] : (validate.errors ?? []).map(({ instancePath, message }) => `${instancePath} ${message ?? ''}`);
}

const sandbox = createSandbox();
const { provider: providerAccount, dealer: dealerAccount } = sandbox.accounts;
const credentialKey = providerAccount.sites[0].credentialKey;
const seen: Seen[] = [];

/** The sandbox's fetch, keeping every answer as it came over the wire. */
const recording: typeof fetch = async (input, init) => {
  const request = input instanceof Request && init === undefined ? input : new Request(input, init);
  const response = await sandbox.fetch(request.clone());
  const text = await response.clone().text();
  seen.push({ method: request.method, path: new URL(request.url).pathname, status: response.status, body: JSON.parse(text) as unknown });
  return response;
};

const provider = new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey: providerAccount.apiKey, secretKey: providerAccount.secretKey, credentialKey, fetch: recording, maxRetries: 0 });
const dealer = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...dealerAccount, fetch: recording, maxRetries: 0 });

/** Sends a request signed by hand, so that the SDK's own checks do not stop what the sandbox should refuse. */
async function raw(row: ApiEndpoint, params: Record<string, string | number>, secretKey?: string): Promise<Seen> {
  const account = row.api === 'provider' ? providerAccount : dealerAccount;
  const between = row.endpoint.hash === 'key' ? providerAccount.key : row.endpoint.hash === 'credential' ? credentialKey : '';
  const headers = row.endpoint.hash === 'key' ? { 'X-Key': between } : row.endpoint.hash === 'credential' ? { 'X-Credential-Key': between } : {};
  const url = new URL(endpointPath(row), SANDBOX_BASE_URL);
  if (row.endpoint.method === 'GET') for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  const request = handSigned(url.href, {
    method: row.endpoint.method,
    apiKey: account.apiKey,
    secretKey: secretKey ?? account.secretKey,
    between,
    headers,
    ...(row.endpoint.method === 'POST' ? { body: JSON.stringify(params) } : {}),
  });
  const before = seen.length;
  await recording(request);
  const answer = seen[before];
  if (answer === undefined) throw new Error('the sandbox answered nothing');
  return answer;
}

const idOf = operationId;

// Values the sandbox knows, read through the clients before the table runs.
const { eibans } = await dealer.eibans.list();
const walletId = eibans[0]?.wallet_id ?? '';
const card = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
const transfer = await dealer.transfers.send({ wallet_id: walletId, recipient_iban: 'TR330006100519786457841326', recipient_name: 'Ada Yılmaz', amount: 10, description: 'refund' });
const today = new Date().toISOString().slice(0, 10);

/** The values of the registry's examples that only the sandbox can give: the ids it gave out, today's dates. */
const SANDBOX_VALUES: Readonly<Record<string, unknown>> = {
  key: providerAccount.key,
  tracking_code: card.data.tracking_code,
  transfer_id: transfer.transfer.transfer_id,
  wallet_id: walletId,
  start_date: today,
  end_date: today,
};

const CALLS = [
  ...PROVIDER_CALLS.map((call) => ({ call: call as ApiCall<unknown>, client: provider })),
  ...DEALER_CALLS.map((call) => ({ call: call as ApiCall<unknown>, client: dealer })),
].map(({ call, client }) => ({ id: call.id, call, client }));

describe('the sandbox satisfies docs/openapi.json', () => {
  test.each(CALLS)('$id: the answer to a valid call validates against its 200', async ({ id, call, client }) => {
    const before = seen.length;
    await call.invoke(client, withValues(call.valid, SANDBOX_VALUES) as never);
    const answers = seen.slice(before);
    expect(answers.map(({ status }) => status)).toEqual([200]);
    expect(violations(answers[0]!), id).toEqual([]);
  });

  test('a pending transfer\'s status, with description and completed_at null, validates', async () => {
    // Without a description: the sandbox answers null for it, as for completed_at.
    const bare = await dealer.transfers.send({ wallet_id: walletId, recipient_iban: 'TR330006100519786457841326', recipient_name: 'Ada Yılmaz', amount: 10 });
    const before = seen.length;
    await dealer.transfers.getStatus({ transfer_id: bare.transfer.transfer_id });
    const [answer] = seen.slice(before);
    expect(answer?.body).toMatchObject({ transfer: { status: 'pending', description: null, completed_at: null } });
    expect(violations(answer!)).toEqual([]);
  });

  test.each(API_ENDPOINTS.map((row) => [idOf(row), row] as const))('%s: a wrong secret key is refused with an answer the document declares', async (_id, row) => {
    const answer = await raw(row, {}, 'wrong_secret_value');
    expect(answer.status).toBe(401);
    expect(violations(answer)).toEqual([]);
  });

  const takesParams = API_ENDPOINTS.filter((row) => !row.endpoint.params.safeParse(undefined).success && row.endpoint.hash !== 'key');
  test.each(takesParams.map((row) => [idOf(row), row] as const))('%s: missing parameters are a validation error the document declares', async (_id, row) => {
    const answer = await raw(row, {});
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(violations(answer)).toEqual([]);
  });

  test.each([
    ['dealer.transactions.list', () => ({ wallet_id: walletId, start_date: '2026-11-10', end_date: '2026-11-01' }), 'INVALID_DATE_RANGE'],
    ['dealer.transactions.list', () => ({ wallet_id: walletId, start_date: '2026-11-01', end_date: '2026-11-10' }), 'DATE_RANGE_EXCEEDED'],
    ['dealer.transactions.list', () => ({ wallet_id: 'wallet_not_ours', start_date: '2026-11-01', end_date: '2026-11-02' }), 'WALLET_NOT_ASSIGNED'],
    ['dealer.transfers.send', () => ({ wallet_id: walletId, recipient_iban: 'TR330006100519786457841326', recipient_name: 'Ada', amount: 5 }), 'MIN_AMOUNT_ERROR'],
    ['dealer.transfers.send', () => ({ wallet_id: walletId, recipient_iban: 'TR330006100519786457841327', recipient_name: 'Ada', amount: 10 }), 'INVALID_IBAN'],
    ['dealer.transfers.send', () => ({ wallet_id: walletId, recipient_iban: 'TR330006100519786457841326', recipient_name: 'Ada', amount: 99_999_999 }), 'INSUFFICIENT_BALANCE'],
    ['dealer.transfers.send', () => ({ wallet_id: 'wallet_not_ours', recipient_iban: 'TR330006100519786457841326', recipient_name: 'Ada', amount: 10 }), 'WALLET_NOT_ASSIGNED'],
    ['dealer.transfers.getStatus', () => ({ transfer_id: 'TRF-none0000' }), 'Transfer not found'],
    ['provider.creditCard.getStatus', () => ({ tracking_code: 'CC-none0000-1763812000' }), 'Payment not found'],
  ] as const)('%s refused with %s (%#): an answer the document declares', async (id, params, text) => {
    const answer = await raw(rowOf(id), params());
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(answer.body)).toContain(text);
    expect(violations(answer)).toEqual([]);
  });

  // Last, so that it sees what the tests above sent.
  test('every operation of the document was answered with success and refused at least once', () => {
    const answered = new Set(seen.map((answer) => `${answer.method} ${answer.path} ${answer.status < 300 ? 'ok' : 'refused'}`));
    for (const row of API_ENDPOINTS) {
      expect(answered, idOf(row)).toContain(`${row.endpoint.method} ${endpointPath(row)} ok`);
      expect(answered, idOf(row)).toContain(`${row.endpoint.method} ${endpointPath(row)} refused`);
    }
  });
});
