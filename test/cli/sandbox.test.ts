import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import { json, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import { CALLBACK_KINDS } from '../../src/webhooks/kinds.js';
import { SANDBOX_OPTIONS } from '../../src/tools/sandbox/options.js';
import { rangeOf } from '../../src/tools/cli/flags.js';
import { sandboxSettings, settingFlag } from '../../src/tools/cli/sandbox-settings.js';
import { payorch, run, expectUsageError } from './run.js';

closeLoopbackServers();

const READY = /Stop with Ctrl\+C\./;
/** The value of an `export NAME='value'` line. */
const value = (printed: string, name: string) => new RegExp(`^export ${name}='(.+)'$`, 'm').exec(printed)?.[1] ?? '';

/** Starts `payorch sandbox --port 0 ...args` in this process and waits for it to print `ready`. */
async function sandbox(args: readonly string[], ready: RegExp = READY) {
  const command = run(['sandbox', '--port', '0', ...args]);
  const printed = await command.stdout.until(ready);
  return { command, printed };
}

async function settle(url: string, id: string, status: string): Promise<unknown> {
  const answer = await fetch(`${url}/__sandbox/settle`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id, status }) });
  return answer.json();
}

const signedHeaders = (apiKey: string, secretKey: string, between = '') => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  // Spec 5.1, by hand: SHA-256 of api_key + secret_key (+ key) + timestamp as lowercase hex.
  const hash = createHash('sha256').update(`${apiKey}${secretKey}${between}${timestamp}`).digest('hex');
  return { 'X-Api-Key': apiKey, 'X-Hash': hash, 'X-Timestamp': timestamp, 'Content-Type': 'application/json' };
};

async function startDeposit(printed: string): Promise<string> {
  const url = value(printed, 'PAYORCH_BASE_URL');
  const credentialKey = value(printed, 'PAYORCH_CREDENTIAL_KEY');
  const answer = await fetch(`${url}/api/provider/start-manual-deposit`, {
    method: 'POST',
    headers: { ...signedHeaders(value(printed, 'PAYORCH_PROVIDER_API_KEY'), value(printed, 'PAYORCH_PROVIDER_SECRET_KEY'), credentialKey), 'X-Credential-Key': credentialKey },
    body: JSON.stringify({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 }),
  });
  return ((await answer.json()) as { data: { tracking_code: string } }).data.tracking_code;
}

describe('payorch sandbox', { timeout: 60_000 }, () => {
  test('--json prints one object with the url, the credentials and the sites', async () => {
    const { command, printed } = await sandbox(['--json'], /^\}$/m);
    const parsed = JSON.parse(printed) as { url: string; credentials: Record<string, string>; sites: { id: number; name: string; credentialKey: string }[] };
    expect(parsed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(parsed.credentials['PAYORCH_BASE_URL']).toBe(parsed.url);
    expect(parsed.credentials['PAYORCH_CREDENTIAL_KEY']).toBe(parsed.sites[0]?.credentialKey);
    expect(parsed.sites).toHaveLength(2);
    expect(await command.stop()).toBe(0);
  });

  test('--env prints only export lines a shell can eval', async () => {
    const { command, printed } = await sandbox(['--env'], /PAYORCH_DEALER_SECRET_KEY=.*\n/);
    const lines = printed.trim().split('\n');
    expect(lines).toHaveLength(7);
    for (const line of lines) expect(line).toMatch(/^export PAYORCH_[A-Z_]+='[^']+'$/);
    await command.stop();
  });

  test('the start-up output says where each kind of callback goes, and warns when nowhere', async () => {
    const none = await sandbox([]);
    for (const kind of CALLBACK_KINDS) expect(none.printed).toMatch(new RegExp(`^  ${kind} +nowhere: no callback URL is configured`, 'm'));
    expect(none.printed).toContain('Warning: no callback URL is configured, so settling a payment delivers no callback.');
    await none.command.stop();
    const some = await sandbox(['--callback', 'deposit=http://127.0.0.1:3000/hooks']);
    expect(some.printed).toMatch(/^ {2}deposit +http:\/\/127\.0\.0\.1:3000\/hooks$/m);
    expect(some.printed).toMatch(/^ {2}withdrawal +nowhere: no callback URL is configured/m);
    expect(some.printed).not.toContain('Warning');
    await some.command.stop();
  });

  test('--json carries the callback URLs; --json and --env warn on stderr when none is configured', async () => {
    const configured = await sandbox(['--json', '--callback', 'creditCard=http://127.0.0.1:3000/cards'], /^\}$/m);
    expect((JSON.parse(configured.printed) as { callbackUrls: unknown }).callbackUrls).toEqual({ creditCard: 'http://127.0.0.1:3000/cards' });
    expect(configured.command.stderr.text).toBe('');
    await configured.command.stop();
    const none = await sandbox(['--env'], /PAYORCH_DEALER_SECRET_KEY=.*\n/);
    expect(none.command.stderr.text).toBe('payorch sandbox: no callback URL is configured, so settling a payment delivers no callback (--callback <kind>=<url>)\n');
    await none.command.stop();
  });

  test.each([[[]], [['--env']]])('the credential lines of %j are export lines that sh runs as they are', async (args) => {
    const { command, printed } = await sandbox(args, /PAYORCH_DEALER_SECRET_KEY=.*\n/);
    const exports = printed.split('\n').filter((line) => line.startsWith('export '));
    expect(exports).toHaveLength(7);
    const names = exports.map((line) => /^export ([A-Z_]+)=/.exec(line)?.[1] ?? '');
    const seen = execFileSync('sh', ['-c', `${exports.join('\n')}\n${names.map((name) => `printf '%s\\n' "$${name}"`).join('\n')}`], { encoding: 'utf8', env: {} });
    expect(seen.trim().split('\n')).toEqual(names.map((name) => value(printed, name)));
    await command.stop();
  });

  test('the same seed gives the same credentials; --seed changes them', async () => {
    const keyOf = async (...args: string[]) => {
      const { command, printed } = await sandbox(args);
      await command.stop();
      return value(printed, 'PAYORCH_PROVIDER_API_KEY');
    };
    const first = await keyOf();
    expect(await keyOf()).toBe(first);
    expect(await keyOf('--seed', 'other')).not.toBe(first);
  });

  test('a port that is taken fails with exit 1 and the hint to use --port 0', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const run = await payorch(['sandbox', '--port', String(port)]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use. Pass --port 0 to pick a free port`);
    } finally {
      holder.close();
    }
  });

  test('--callback-retries sets the delivery attempts and --callback-timeout the time one may take', async () => {
    // The receiver never answers: each attempt ends at the timeout, and the sandbox gives up after 2.
    const receiver = await startServer(() => undefined);
    const { command, printed } = await sandbox(['--callback', `deposit=${receiver.url}/hooks`, '--callback-retries', '2', '--callback-timeout', '200']);
    const code = await startDeposit(printed);
    await settle(value(printed, 'PAYORCH_BASE_URL'), code, 'completed');
    // Settling delivers in the background: wait until the sandbox has given up.
    let attempts: { attempt: number; delivered: boolean; error?: string }[] = [];
    await vi.waitFor(async () => {
      const log = (await (await fetch(`${value(printed, 'PAYORCH_BASE_URL')}/__sandbox/deliveries`)).json()) as { deliveries: typeof attempts };
      attempts = log.deliveries;
      expect(attempts).toHaveLength(2);
    }, { timeout: 20_000, interval: 100 });
    expect(attempts.map((attempt) => [attempt.attempt, attempt.delivered])).toEqual([[1, false], [2, false]]);
    expect(receiver.seen).toHaveLength(2);
    await command.stop();
  });

  test.each([
    ['--callback-keep-signature sends a retry with the first signature, byte for byte', ['--callback-keep-signature'], true],
    ['without it a retry is signed afresh (a later timestamp)', [], false],
  ])('%s', async (_name, flag, same) => {
    // The first attempt fails, the retry (1 s later) is answered 200.
    const receiver = await startServer((_request, response, n) => json(response, n === 1 ? 500 : 200, { success: n !== 1 }));
    const { command, printed } = await sandbox(['--callback', `deposit=${receiver.url}/hooks`, '--callback-retries', '2', ...flag]);
    const code = await startDeposit(printed);
    await settle(value(printed, 'PAYORCH_BASE_URL'), code, 'completed');
    await vi.waitFor(() => {
      expect(receiver.seen).toHaveLength(2);
    }, { timeout: 20_000, interval: 100 });
    const [first, retry] = receiver.seen;
    expect(retry?.headers['x-timestamp'] === first?.headers['x-timestamp']).toBe(same);
    expect(retry?.body === first?.body).toBe(same);
    await command.stop();
  });

  test.each([
    [['sandbox', '--port', 'http'], /--port must be an integer from 0 to 65535; got "http"/],
    [['sandbox', '--callback', 'refunds=http://127.0.0.1:1/'], /--callback takes kind=url with kind one of deposit, withdrawal, creditCard, dealerCreditCard; got kind "refunds"/],
    [['sandbox', '--callback', 'deposit=notaurl'], /--callback takes kind=url with an absolute URL \(http:\/\/127\.0\.0\.1:3000\/webhooks\); got "notaurl" for deposit$/m],
    [['sandbox', '--callback-retries', '0'], /--callback-retries must be an integer from 1 to 20; got 0$/m],
    [['sandbox', '--callback-timeout', '1.5'], /--callback-timeout must be an integer from 1 to 2147483647; got 1.5/],
    [['sandbox', '--env', '--json'], /choose one/],
    [['sandbox', '--verbose'], /payorch sandbox: unknown option --verbose/],
    [['sandbox', '--callbacks', 'deposit=http://127.0.0.1:1/'], /payorch sandbox: unknown option --callbacks; did you mean --callback\?/],
    [['sandbox', 'rotate-keys', '--window', '60'], /--account must be provider or dealer$/m],
    [['sandbox', 'rotate-keys', '--account', 'merchant', '--window', '60'], /--account must be provider or dealer, not "merchant"/],
    [['sandbox', 'rotate-keys', '--account', 'provider'], /--window is required: how long the keys before stay valid, in seconds \(0 to 2592000\)/],
    [['sandbox', 'rotate-keys', '--account', 'provider', '--window', '2592001'], /--window must be an integer from 0 to 2592000 \(at most 30 days\); got 2592001/],
    [['sandbox', 'rotate-keys', '--account', 'provider', '--window', '60'], /--sandbox-url is required \(or set PAYORCH_BASE_URL\)/],
  ])('payorch %j is bad usage: exit 2', async (args, message) => {
    await expectUsageError(args, {}, message);
  });
});

describe('payorch sandbox rotate-keys', { timeout: 60_000 }, () => {
  test('gives an account of the running sandbox new keys, prints them as export lines with the keys before, and the keys before still sign', async () => {
    const { command, printed } = await sandbox([]);
    const url = value(printed, 'PAYORCH_BASE_URL');
    const before = { apiKey: value(printed, 'PAYORCH_PROVIDER_API_KEY'), secretKey: value(printed, 'PAYORCH_PROVIDER_SECRET_KEY') };
    const rotated = await payorch(['sandbox', 'rotate-keys', '--account', 'provider', '--window', '600'], { PAYORCH_BASE_URL: url });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^Rotated the provider's keys\. The keys before stay valid for requests until \d{4}-\d\d-\d\dT[\d:.]+Z\.$/m);
    const after = { apiKey: value(rotated.stdout, 'PAYORCH_PROVIDER_API_KEY'), secretKey: value(rotated.stdout, 'PAYORCH_PROVIDER_SECRET_KEY') };
    expect(after.apiKey).toMatch(/^prov_api_/);
    expect(after.apiKey).not.toBe(before.apiKey);
    expect(rotated.stdout).toContain(`  secret key  ${before.secretKey}`);
    // Receivers keep the secret key before through the redeliveries, not the panel's 10 minutes.
    const until = Date.parse(/^ {2}until {7}(\S+)$/m.exec(rotated.stdout)?.[1] ?? '');
    expect(until - Date.now()).toBeGreaterThan(4 * 86_400_000 - 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(4 * 86_400_000);
    const welcome = async (keys: typeof before) => (await fetch(`${url}/api/provider/welcome`, { method: 'POST', headers: signedHeaders(keys.apiKey, keys.secretKey) })).status;
    expect([await welcome(after), await welcome(before)]).toEqual([200, 200]);

    // --env: the dealer's new keys only, for eval; --json: one object.
    const env = await payorch(['sandbox', 'rotate-keys', '--account', 'dealer', '--window', '0', '--env', '--sandbox-url', url]);
    expect(env.stdout).toMatch(/^export PAYORCH_DEALER_API_KEY='dealer_api_[0-9a-f]{12}'\nexport PAYORCH_DEALER_SECRET_KEY='dealer_secret_\w{24}'\n$/);
    const json = await payorch(['sandbox', 'rotate-keys', '--account', 'provider', '--window', '60', '--keep-api-key', '--json'], { PAYORCH_BASE_URL: url });
    const parsed = JSON.parse(json.stdout) as { previous: { requestsUntil: string; receiversUntil: string } };
    expect(parsed).toMatchObject({ account: 'provider', apiKey: after.apiKey, previous: { apiKey: after.apiKey, secretKey: after.secretKey } });
    expect(Date.parse(parsed.previous.receiversUntil) - Date.parse(parsed.previous.requestsUntil)).toBeGreaterThan(4 * 86_400_000 - 120_000);
    await command.stop();
  });

  test('fails with exit 1 when nothing answers at the URL, or something that is not a sandbox does', async () => {
    const other = await startServer((_request, response) => json(response, 404, { message: 'not here' }));
    const refused = await payorch(['sandbox', 'rotate-keys', '--account', 'provider', '--window', '60', '--sandbox-url', other.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/did not rotate the keys \(is it a payorch sandbox\?\): HTTP 404/);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    await new Promise<void>((resolve) => holder.close(() => { resolve(); }));
    const nobody = await payorch(['sandbox', 'rotate-keys', '--account', 'provider', '--window', '60', '--sandbox-url', `http://127.0.0.1:${port}`]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/Could not reach the sandbox at http:\/\/127\.0\.0\.1:\d+ \(--sandbox-url or PAYORCH_BASE_URL\)/);
  });
});

describe('payorch sandbox: every createSandbox() option is reachable', { timeout: 60_000 }, () => {
  const sample = (declaration: (typeof SANDBOX_OPTIONS)[number]): [text: string, value: unknown] => {
    const { rule } = declaration;
    switch (rule.type) {
      case 'number':
        return [String(rule.max === Infinity ? rule.min + 1 : rule.max), rule.max === Infinity ? rule.min + 1 : rule.max];
      case 'boolean':
        return ['false', false];
      case 'time':
        return ['2026-01-15T09:00:00.000Z', new Date('2026-01-15T09:00:00.000Z')];
      case 'httpUrl':
      case 'serviceUrl':
        return ['https://sandbox.example.test', 'https://sandbox.example.test'];
      case 'key':
      case 'text':
      case 'oneOf':
      case 'function':
      case 'object':
        return ['k-1', 'k-1'];
    }
  };
  const at = (options: object, path: string): unknown => path.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown> | undefined)?.[part], options);

  test.each(SANDBOX_OPTIONS.map((declaration) => [declaration.name, declaration] as const))('%s has a flag in the help, and the flag sets it', async (name, declaration) => {
    const [text, value] = sample(declaration);
    if (name === 'callbackRetry.resign') {
      expect(at(sandboxSettings({}, undefined, true), name)).toBe(false);
      return;
    }
    const flag = settingFlag(name);
    expect(at(sandboxSettings({ [flag.slice(2)]: text }, undefined, false), name)).toEqual(value);
    const help = await payorch(['sandbox', '--help']);
    // A wide flag's description is on the line after it.
    const lines = help.stdout.split('\n');
    expect(lines.some((line, index) => line.trimStart().startsWith(`${flag} `) && `${line}\n${lines[index + 1] ?? ''}`.includes(rangeOf(declaration)))).toBe(true);
  });

  test('no flag of the help runs into its description: two spaces at least, or the description on the next line', async () => {
    const help = await payorch(['sandbox', '--help']);
    const flagLines = help.stdout.split('\n').filter((line) => /^ {2}--/.test(line));
    expect(flagLines.length).toBeGreaterThan(20);
    for (const line of flagLines) expect(line).toMatch(/^ {2}--[\w-]+(?: <[^>]+>)?(?: {2,}\S.*)?$/);
  });

  test('--config sets any option, a flag wins over it, and what it sets reaches the running sandbox', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'payorch-sandbox-config-'));
    const file = join(directory, 'sandbox.json');
    writeFileSync(file, JSON.stringify({ provider: { name: 'From The File', active: false }, transferCompletionSeconds: 5, startTime: '2026-01-15T09:00:00Z' }));
    const { command, printed } = await sandbox(['--config', file, '--provider-active', 'true', '--json'], /^\}$/m);
    const { credentials } = JSON.parse(printed) as { credentials: Record<string, string> };
    const url = credentials['PAYORCH_BASE_URL'] ?? '';
    const welcome = await fetch(`${url}/api/provider/welcome`, { method: 'POST', headers: signedHeaders(credentials['PAYORCH_PROVIDER_API_KEY'] ?? '', credentials['PAYORCH_PROVIDER_SECRET_KEY'] ?? '') });
    expect(welcome.status).toBe(200);
    expect(JSON.stringify(await welcome.json())).toContain('From The File');
    await command.stop();
    expect(sandboxSettings({}, file, false)).toMatchObject({ transferCompletionSeconds: 5, startTime: new Date('2026-01-15T09:00:00Z') });
  });

  test.each([
    [['--transfer-completion-seconds', 'soon'], /--transfer-completion-seconds must be a finite number of seconds from 0 to \d+; got "soon"/],
    [['--provider-active', 'yes'], /--provider-active must be true or false; got "yes"/],
    [['--config', '/nonexistent/sandbox.json'], /--config \/nonexistent\/sandbox\.json cannot be read: ENOENT/],
  ])('payorch sandbox %j is bad usage naming the flag', async (args, message) => {
    await expectUsageError(['sandbox', ...args], {}, message);
  });
});
