import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The named export: under NodeNext the default import of this CommonJS file is its namespace.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, test } from 'vitest';
import { API_ENDPOINTS, operationId } from '../../src/tools/registry/index.js';

/*
 * docs/openapi.json checked from outside payorch: Redocly's recommended ruleset, and Ajv
 * (JSON Schema 2020-12, OpenAPI 3.1's dialect) run on bodies written by hand from the spec.
 * document.test.ts proves that the file is what the generator prints.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const documentPath = join(root, 'docs/openapi.json');
const document = JSON.parse(readFileSync(documentPath, 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  webhooks: Record<string, { post: Record<string, unknown> }>;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(document, 'openapi');
const pointer = (...segments: string[]) => segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
const find = (operationId: string) => {
  const found = operations.find(({ operation }) => operation.operationId === operationId);
  if (found === undefined) throw new Error(`no operation ${operationId}`);
  return found;
};

/** Ajv's validator of one response body of the document (or undefined when the response is absent). */
function responseValidator(operationId: string, status: string): ValidateFunction | undefined {
  const { path, method, operation } = find(operationId);
  if (!(status in operation.responses)) return undefined;
  const validate = ajv.getSchema(`openapi#/${pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema')}`);
  if (validate === undefined) throw new Error(`no schema for ${operationId} ${status}`);
  return validate;
}
const webhookValidator = (kind: string): ValidateFunction => {
  const validate = ajv.getSchema(`openapi#/${pointer('webhooks', kind, 'post', 'requestBody', 'content', 'application/json', 'schema')}`);
  if (validate === undefined) throw new Error(`no webhook ${kind}`);
  return validate;
};
const errorsOf = (validate: ValidateFunction, body: unknown): string[] => (validate(body) ? [] : (validate.errors ?? []).map(({ instancePath, message }) => `${instancePath} ${message ?? ''}`));

describe('Redocly (recommended ruleset)', () => {
  const work = mkdtempSync(join(tmpdir(), 'payorch-openapi-'));
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  interface Problem { ruleId: string; severity: 'error' | 'warn'; location: { pointer: string }[] }
  interface Report { totals: { errors: number; warnings: number }; problems: Problem[] }
  /** The JSON values of `text`, one after another: Redocly prints one report a file, unseparated. */
  const values = (text: string): unknown[] => {
    const found: unknown[] = [];
    let depth = 0;
    let start = -1;
    let quoted = false;
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index];
      if (quoted) {
        if (char === '\\') index += 1;
        else if (char === '"') quoted = false;
      } else if (char === '"') quoted = true;
      else if (char === '{') {
        if (depth === 0) start = index;
        depth += 1;
      } else if (char === '}') {
        depth -= 1;
        if (depth === 0) found.push(JSON.parse(text.slice(start, index + 1)));
      }
    }
    return found;
  };
  // One Redocly for all the files (it starts slowly): their reports, in the order given.
  const lint = <const Files extends string[]>(...files: Files) =>
    new Promise<{ [Index in keyof Files]: Report }>((resolve, reject) => {
      execFile(
        join(root, 'node_modules/.bin/redocly'),
        ['lint', ...files, '--extends=recommended', '--format=json'],
        // No update check and no usage report from a test run.
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } },
        // It exits 1 when it finds an error; the reports are on stdout either way.
        (error, stdout) => {
          const reports = values(stdout) as Report[];
          if (reports.length === files.length) resolve(reports as { [Index in keyof Files]: Report });
          else reject(error ?? new Error(`redocly printed ${String(reports.length)} reports for ${String(files.length)} files: ${stdout}`));
        },
      );
    });

  test('finds no error and no warning: every operation declares its 4xx answers', async () => {
    // A copy without a webhook's security must fail, so that a passing lint means something.
    const broken = structuredClone(document);
    delete broken.webhooks['deposit']!.post['security'];
    writeFileSync(join(work, 'broken.json'), JSON.stringify(broken));
    const [report, brokenReport] = await lint(documentPath, join(work, 'broken.json'));

    expect(report.problems.map(({ ruleId, severity, location }) => [ruleId, severity, location[0]?.pointer])).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });

    expect(brokenReport.problems).toContainEqual(expect.objectContaining({ ruleId: 'security-defined', severity: 'error', location: [expect.objectContaining({ pointer: '#/webhooks/deposit/post' })] }));
  }, 60_000);
});

/*
 * Every body shape of spec 7.2, with the texts of 7.3 and the codes of 7.4 (which field carries
 * a dealer code is not shown: `error` is the plausible place, `code` the other one payorch reads).
 */
const ERROR_BODIES: readonly (readonly [string, unknown])[] = [
  ['7.3 unauthorized credential key (error + message)', { success: false, error: 'Yetkisiz Credential Key', message: 'Bu credential key bu providera ait değil.' }],
  ['7.3 validation error (error + messages)', { success: false, error: 'Doğrulama hatası', messages: ['Alıcı IBAN alanı zorunludur.', 'Tutar alanı zorunludur.'] }],
  ['7.3 card error: invalid credential key', { success: false, message: 'Invalid credential key' }],
  ['7.3 card error: not enabled', { success: false, message: 'Credit card payment is not enabled for this dealer' }],
  ['7.3 card error: blocked customer', { success: false, message: 'This customer is blocked. Payment not allowed.' }],
  ...['DATE_RANGE_EXCEEDED', 'INVALID_DATE_RANGE', 'WALLET_NOT_ASSIGNED', 'INSUFFICIENT_BALANCE', 'INVALID_IBAN', 'MIN_AMOUNT_ERROR'].map(
    (code) => [`7.4 ${code} in error`, { success: false, error: code, message: code.toLowerCase().replaceAll('_', ' ') }] as const,
  ),
  ['7.4 a code in its own field', { success: false, error: 'Transfer failed', code: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance' }],
];

/** The refusals of spec 7.1, as the Error shape of 7.2 with and without its message. */
const AUTH_BODIES = ['Missing required headers', 'Invalid API key', 'Request timestamp expired', 'Invalid hash', 'Provider account is inactive', 'IP address not allowed'].flatMap((error) => [
  { success: false, error },
  { success: false, error, message: `${error}.` },
]);

describe('the error responses (Ajv 2020)', () => {
  test.each(ERROR_BODIES)('%s validates against the error response of every operation', (_, body) => {
    for (const { operation } of operations) {
      expect(errorsOf(responseValidator(operation.operationId, 'default')!, body), operation.operationId).toEqual([]);
    }
  });

  test('every 7.1 refusal validates against the 401 and 403 of every provider operation; dealer operations claim neither', () => {
    for (const { operation } of operations) {
      for (const status of ['401', '403']) {
        const validate = responseValidator(operation.operationId, status);
        if (operation.operationId.startsWith('dealer.')) {
          expect(validate, `${operation.operationId} ${status}`).toBeUndefined();
          continue;
        }
        for (const body of AUTH_BODIES) expect(errorsOf(validate!, body), `${operation.operationId} ${status}`).toEqual([]);
      }
    }
  });

  test.each([
    ['a success body', { success: true, message: 'ok' }],
    ['success false alone', { success: false }],
    ['messages that are not a list', { success: false, error: 'Doğrulama hatası', messages: 'Tutar alanı zorunludur.' }],
    ['no success flag', { error: 'Invalid hash', message: 'Invalid hash' }],
  ])('%s is not an error body', (_, body) => {
    expect(responseValidator('dealer.transfers.send', 'default')!(body)).toBe(false);
    expect(responseValidator('provider.manual.startWithdrawal', 'default')!(body)).toBe(false);
  });
});

/** The operation a corpus answer is for, by its name: `provider--third-party-bank-gateways.json`. */
const corpusOperation = (name: string): string => {
  const [api, rest] = name.split('--') as [string, string];
  const found = operations.find(({ path }) => path === `/api/${api}/${rest.split('.')[0]!}` || path.replaceAll('/', '-') === `-api-${api}-${rest.split('.')[0]!}`);
  if (found === undefined) throw new Error(`no operation for ${name}`);
  return found.operation.operationId;
};

const fixture = (folder: 'answers' | 'callbacks', name: string): unknown => JSON.parse(readFileSync(join(root, 'test/fixtures', folder, name), 'utf8'));

// The corpus's answers written with the spec's types (the others are its tolerant variants).
const SPEC_ANSWERS: readonly string[] = [
  'provider--welcome.json',
  'provider--sites.json',
  'provider--start-manual-deposit.json',
  'provider--start-eiban-deposit.json',
  'provider--credit-card-payment.json',
  'provider--credit-card-status.json',
  'provider--third-party-bank-start-deposit.json',
  'provider--third-party-crypto-start-deposit.json',
  'provider--third-party-crypto-start-withdrawal.json',
  'provider--third-party-wallet-start-withdrawal.json',
  'dealer--settings.json',
  'dealer--manual-iban-deposit.json',
  'dealer--transactions.json',
  'dealer--send-money.json',
  'dealer--transfer-status.json',
  'dealer--credit-card-payment.json',
];

// Written from spec 4.6, 2.7 (E-IBAN list, manual withdrawal) and 2.5 with the spec's types.
const WRITTEN_ANSWERS: readonly (readonly [string, string, unknown])[] = [
  [
    'a manual withdrawal (4.6)',
    'provider.manual.startWithdrawal',
    {
      success: true,
      message: 'Çekim talebi oluşturuldu',
      data: {
        tracking_code: 'WIT-8F2K1Q-1763812345',
        site: { id: 7, name: 'Example Casino' },
        customer: { fullname: 'Ayşe Yılmaz', username: 'ayse', user_id: 'u-1001' },
        iban: 'TR330006100519786457841326',
        amount: 1500,
        status: 'pending',
        created_at: '2025-11-22 12:05:45',
      },
      timestamp: '2025-11-22 12:05:45',
    },
  ],
  [
    'the E-IBAN list, balances as decimal strings (2.7)',
    'dealer.eibans.list',
    {
      success: true,
      dealer_name: 'Example Dealer',
      total_eibans: 1,
      eibans: [{ id: 3, iban_no: 'TR330006100519786457841326', bank_name: 'Ziraat', account_name: 'Example Ltd', wallet_id: 'W-3', balance: '12500.00', available_balance: '12000.50' }],
    },
  ],
  [
    'a dealer manual withdrawal (4.13)',
    'dealer.manualIban.startWithdrawal',
    { success: true, message: 'Withdrawal request created', data: { tracking_code: 'WDR-5T6Y7U-1763812345', status: 'pending', amount: 750.5, recipient_name: 'Mehmet Demir', recipient_iban: 'TR330006100519786457841326' } },
  ],
  [
    'the bank gateways (2.5)',
    'provider.thirdParty.bank.gateways.list',
    { success: true, data: { gateways: [{ id: 4, name: 'Papara Havale', code: 'papara', min_amount: 100, max_amount: 50000, required_fields: ['iban', 'account_holder'], description: 'Bank transfer' }], count: 1 } },
  ],
];

// Callbacks of spec 6.2 to 6.5 with the spec's types: the corpus's conforming ones and written ones.
const SPEC_CALLBACKS: readonly (readonly [string, string, unknown])[] = [
  ...['deposit.completed.json', 'deposit.expired.json', 'withdrawal.completed.json', 'withdrawal.failed.json', 'creditCard.cancelled.json'].map(
    (name) => [`${name} of the corpus`, name.split('.')[0]!, (fixture('callbacks', name) as { body: unknown }).body] as const,
  ),
  [
    'a successful dealer card payment (6.5)',
    'dealerCreditCard',
    {
      success: true,
      tracking_code: 'CC-9A8B7C-1763812345',
      order_id: 'ORD-20251122-0042',
      status: 'success',
      amount: 250,
      currency: 'TRY',
      customer_name: 'Ayşe Yılmaz',
      customer_email: 'ayse@example.com',
      customer_phone: '+905551112233',
      status_message: 'Payment completed',
      completed_at: '2025-11-22T12:05:45+00:00',
      timestamp: 1763812345,
      hash: 'c'.repeat(64),
    },
  ],
  [
    'a failed dealer card payment (6.5): error fields instead of the success-only ones',
    'dealerCreditCard',
    { success: false, tracking_code: 'CC-9A8B7C-1763812345', order_id: 'ORD-20251122-0042', status: 'failed', amount: 250, currency: 'TRY', error_code: 'EXPIRED', error_message: 'Payment expired', timestamp: 1763812345, hash: 'd'.repeat(64) },
  ],
  [
    'a failed provider card payment (6.4)',
    'creditCard',
    {
      tracking_code: 'CC-1Q2W3E-1763812345',
      order_id: 'ORD-77',
      status: 'failed',
      amount: 300,
      currency: 'TRY',
      username: 'ayse',
      user_id: 'u-1001',
      site_id: 7,
      customer_name: 'Ayşe Yılmaz',
      customer_email: 'ayse@example.com',
      timestamp: 1763812345,
      hash: 'e'.repeat(64),
      error_code: '05',
      error_message: 'Do not honour',
    },
  ],
];

describe('the success responses and webhooks (Ajv 2020) have the spec types', () => {
  test.each(SPEC_ANSWERS)('%s validates against the 200 of its operation', (name) => {
    expect(errorsOf(responseValidator(corpusOperation(name), '200')!, fixture('answers', name))).toEqual([]);
  });

  test.each(API_ENDPOINTS.map((row) => [operationId(row), row] as const))('%s: the registry\'s example answer validates against its 200, which shows it', (id, row) => {
    expect(errorsOf(responseValidator(id, '200')!, row.example.answer)).toEqual([]);
    const { path, method } = find(id);
    expect(document.paths[path]?.[method]).toMatchObject({ responses: { '200': { content: { 'application/json': { example: row.example.answer } } } } });
  });

  test.each(WRITTEN_ANSWERS)('%s validates against the 200 of %s', (_, operationId, body) => {
    expect(errorsOf(responseValidator(operationId, '200')!, body)).toEqual([]);
  });

  test.each(SPEC_CALLBACKS)('%s validates against the %s webhook', (_, kind, body) => {
    expect(errorsOf(webhookValidator(kind), body)).toEqual([]);
  });

  test.each([
    ['amount as a string (6.2: number)', 'deposit', { amount: '1500.00' }, '/amount must be number'],
    ['timestamp as a string (6.2: integer)', 'withdrawal', { timestamp: '1763812345' }, '/timestamp must be integer'],
    ['site_id as a string (6.2: integer)', 'deposit', { site_id: '7' }, '/site_id must be integer,null'],
    ['null for the signed tracking code', 'deposit', { tracking_code: null }, '/tracking_code must be string'],
  ])('a callback with %s is refused', (_, kind, change, error) => {
    const body = { ...((fixture('callbacks', `${kind}.completed.json`) as { body: object }).body), ...change };
    expect(errorsOf(webhookValidator(kind), body)).toContain(error);
  });

  type Body = Record<string, unknown>;
  const within = (body: Body, key: string) => body[key] as Body;
  test.each([
    ['balance as a number (2.7: string decimal)', 'dealer.eibans.list', (body: Body) => { (within(body, 'eibans') as unknown as Body[])[0]!['balance'] = 12500; }, '/eibans/0/balance must be string'],
    ['amount as a numeric string (4.6: number)', 'provider.manual.startWithdrawal', (body: Body) => { within(body, 'data')['amount'] = '1500'; }, '/data/amount must be number'],
    ['success left out (2.1)', 'provider.manual.startWithdrawal', (body: Body) => { delete body['success']; }, " must have required property 'success'"],
    ['success false (2.1)', 'dealer.eibans.list', (body: Body) => { body['success'] = false; }, '/success must be equal to constant'],
  ])('an answer with %s is refused', (_, operationId, spoil, error) => {
    const body = structuredClone(WRITTEN_ANSWERS.find(([, id]) => id === operationId)![2]) as Body;
    spoil(body);
    expect(errorsOf(responseValidator(operationId, '200')!, body)).toContain(error);
  });

  const corpus = (suffix: string) => readdirSync(join(root, 'test/fixtures/answers')).filter((name) => name.endsWith(suffix));

  test('no null of the corpus\'s answers with nulls in optional fields (.nulls) is refused: the service sends them, so the schemas allow them', () => {
    expect(corpus('.nulls.json').length).toBeGreaterThanOrEqual(4);
    const at = (body: unknown, path: string): unknown => path.split('/').slice(1).reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], body);
    for (const name of corpus('.nulls.json')) {
      const body = fixture('answers', name);
      expect(JSON.stringify(body), name).toContain(':null');
      const validate = responseValidator(corpusOperation(name), '200')!;
      validate(body);
      // Some of them also carry numbers as strings, which stay refused.
      expect((validate.errors ?? []).filter(({ instancePath }) => at(body, instancePath) === null), name).toEqual([]);
    }
  });

  test('every other tolerant variant of the corpus (.variants: numbers as strings and the like) is refused: what payorch normalises is not in the schemas', () => {
    // dealer--settings.variants.json departs from the spec by a null message and an unlisted field only.
    const variants = corpus('.variants.json').filter((name) => name !== 'dealer--settings.variants.json');
    expect(variants.length).toBeGreaterThanOrEqual(6);
    for (const name of variants) expect(responseValidator(corpusOperation(name), '200')!(fixture('answers', name)), name).toBe(false);
    expect(errorsOf(responseValidator('dealer.settings.get', '200')!, fixture('answers', 'dealer--settings.variants.json'))).toEqual([]);
  });
});
