// Smoke test of the BUILT package (dist/), run by scripts/test-runtimes.sh on Node 22.12 (the
// floor), the newest 22, 24 and 26, Bun and Deno. Plain JavaScript, so that every runtime runs it
// as it is. Each client makes real calls to a node:http server on 127.0.0.1 that recomputes every
// hash with node:crypto; ./secrets.mjs makes every failure kind happen and reads each error for a
// key or a hash.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createRequire } from 'node:module';
import { openSecretChecks } from './secrets.mjs';
import { canonical } from './canonical.mjs';
import { entry } from '../../scripts/entries.mjs';

const root = new URL('../../', import.meta.url);
const runtime =
  typeof globalThis.Bun !== 'undefined' ? `bun ${globalThis.Bun.version}` : typeof globalThis.Deno !== 'undefined' ? `deno ${globalThis.Deno.version.deno}` : `node ${process.versions.node}`;

const esm = await import(new URL('dist/index.js', root).href);
const cjs = createRequire(import.meta.url)(new URL('dist/index.cjs', root).pathname);
const schemasEsm = await import(new URL('dist/schemas/index.js', root).href);
const schemasCjs = createRequire(import.meta.url)(new URL('dist/schemas/index.cjs', root).pathname);

const KEYS = { apiKey: 'smoke_api_key_0001', secretKey: 'smoke_secret_ğüş_0001' };
const CREDENTIAL = 'smoke_site_credential_01';
const sha256 = (...parts) => createHash('sha256').update(parts.join(''), 'utf8').digest('hex');

const ANSWERS = {
  'POST /api/provider/welcome': { success: true, message: 'Welcome', provider: { id: 1, name: 'Smoke', is_active: true } },
  'POST /api/provider/start-manual-deposit': {
    success: true,
    data: { tracking_code: 'MAN-smoke1-1763812000', payment_url: 'https://pay.example/MAN-smoke1', amount: 250, status: 'showing' },
  },
  'settings': { success: true, message: 'Welcome', dealer_name: 'Smoke Dealer', payment_methods: { credit_card: 'active', eiban: 'active', manual_iban: 'inactive' } },
};

// The service: checks the signature of every request, then answers by path.
const seen = [];
const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const path = new URL(request.url, 'http://x').pathname;
    const between = request.headers['x-credential-key'] ?? request.headers['x-key'] ?? '';
    const signed = request.headers['x-hash'] === sha256(request.headers['x-api-key'], KEYS.secretKey, between, request.headers['x-timestamp']);
    seen.push({ method: request.method, path, body, signed });
    const answer = signed ? (ANSWERS[`${request.method} ${path}`] ?? (path === '/api/dealer/settings' ? ANSWERS.settings : undefined)) : undefined;
    const status = !signed ? 401 : answer === undefined ? 404 : 200;
    const text = JSON.stringify(answer ?? { success: false, error: signed ? 'Not found' : 'Invalid hash' });
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

let passed = 0;
let failed = 0;
async function check(name, run) {
  try {
    await run();
    passed++;
    console.log(`  ok    ${name}`);
  } catch (error) {
    failed++;
    console.log(`  FAIL  ${name}\n${String(error?.stack ?? error).replace(/^/gm, '        ')}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

console.log(`payorch smoke on ${runtime}`);

for (const [label, sdk] of [['ESM import', esm], ['CommonJS require', cjs]]) {
  await check(`${label}: ProviderClient.welcome() and a signed payment`, async () => {
    const provider = new sdk.ProviderClient({ baseUrl, ...KEYS, credentialKey: CREDENTIAL });
    const welcome = await provider.welcome();
    assert(welcome.provider.name === 'Smoke', `welcome answered ${JSON.stringify(welcome)}`);
    const before = seen.length;
    const deposit = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
    assert(deposit.data.status === 'showing', 'the deposit was not parsed');
    const wire = seen[before];
    assert(wire.signed && wire.body === '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}', `wire: ${JSON.stringify(wire)}`);
  });

  await check(`${label}: typed errors (validation, API, connection refused)`, async () => {
    const provider = new sdk.ProviderClient({ baseUrl, ...KEYS, credentialKey: CREDENTIAL, maxRetries: 0 });
    const before = seen.length;
    const invalid = await provider.manual.startDeposit({ fullname: 'A', username: 'a', user_id: '1', amount: 0 }).catch((error) => error);
    assert(invalid instanceof sdk.RequestValidationError && invalid.issues[0].field === 'amount', `got ${invalid}`);
    assert(seen.length === before, 'an invalid request was sent');
    const wrongKey = new sdk.ProviderClient({ baseUrl, apiKey: KEYS.apiKey, secretKey: 'wrong', maxRetries: 0 });
    const auth = await wrongKey.welcome().catch((error) => error);
    assert(auth instanceof sdk.AuthenticationError && auth instanceof sdk.PayorchError && auth.reason === 'invalid_hash', `got ${auth}`);
    const probe = createServer();
    await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = probe.address().port;
    await new Promise((resolve) => probe.close(resolve));
    const nowhere = new sdk.ProviderClient({ baseUrl: `http://127.0.0.1:${closedPort}`, ...KEYS, maxRetries: 0 });
    const refused = await nowhere.welcome().catch((error) => error);
    assert(refused instanceof sdk.ConnectionError && refused.refused === true, `got ${refused?.name}: ${refused?.message} (refused: ${refused?.refused})`);
  });

  await check(`${label}: DealerClient.settings.get()`, async () => {
    assert(typeof sdk.DealerClient === 'function', 'DealerClient is not exported');
    const dealer = new sdk.DealerClient({ baseUrl, ...KEYS });
    const settings = await dealer.settings.get();
    assert(settings.dealer_name === 'Smoke Dealer', `settings: ${JSON.stringify(settings)}`);
  });

  await check(`${label}: verifyCallback() accepts a signed callback and refuses a changed one`, async () => {
    assert(typeof sdk.verifyCallback === 'function', 'verifyCallback is not exported');
    const timestamp = Math.floor(Date.now() / 1000);
    const fields = { tracking_code: 'MAN-smoke1-1763812000', tx_id: 'tx-1', status: 'completed', amount: 250, username: 'ada', fullname: 'Ada', user_id: 'u-1', site_id: 7 };
    const hash = sha256(KEYS.apiKey, KEYS.secretKey, fields.tracking_code, fields.status, String(timestamp));
    const headers = { 'x-api-key': KEYS.apiKey, 'x-timestamp': String(timestamp), 'x-hash': hash, 'content-type': 'application/json' };
    const body = JSON.stringify({ ...fields, timestamp, hash });
    const verified = sdk.verifyCallback({ headers, body }, KEYS);
    assert(verified.kind === 'deposit', `verified: ${JSON.stringify(verified)}`);
    let refused;
    try {
      sdk.verifyCallback({ headers, body: body.replace('"completed"', '"canceled"') }, KEYS);
    } catch (error) {
      refused = error;
    }
    assert(refused instanceof sdk.PayorchError, 'a changed callback was accepted');
  });

  await check(`${label}: a deferred job is sealed with the HMAC node:crypto computes, applied once, and refused when its amount changed`, async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const fields = { tracking_code: 'MAN-smoke2-1763812000', tx_id: 'tx-2', status: 'completed', amount: 250, username: 'ada', fullname: 'Ada', user_id: 'u-1', site_id: 7 };
    const hash = sha256(KEYS.apiKey, KEYS.secretKey, fields.tracking_code, fields.status, String(timestamp));
    const jobs = [];
    const applied = [];
    const receiver = sdk.createCallbackReceiver({ ...KEYS, logLevel: 'off', enqueue: async (job) => void jobs.push(JSON.parse(JSON.stringify(job))) });
    receiver.on('*', (callback) => void applied.push(callback.payload.amount));
    const answer = await receiver.receive({ headers: { 'x-api-key': KEYS.apiKey, 'x-timestamp': String(timestamp), 'x-hash': hash }, body: JSON.stringify({ ...fields, timestamp, hash }) });
    const [job] = jobs;
    const { seal, ...unsealed } = job;
    const mac = createHmac('sha256', KEYS.secretKey).update(`payorch job seal\n${canonical(unsealed)}`, 'utf8').digest('hex');
    assert(answer.status === 200 && seal.mac === mac, `seal ${JSON.stringify(seal)} != ${mac}`);
    await receiver.apply(job);
    const changed = await receiver.apply({ ...job, payload: { ...job.payload, amount: 999999 } }).then(() => undefined, (error) => error);
    assert(changed?.reason === 'invalid_signature' && JSON.stringify(applied) === '[250]', `changed: ${changed?.message}, applied: ${JSON.stringify(applied)}`);
  });
}

// How this runtime's fetch reports a failure before the request could leave (a name
// that does not resolve, a refused connection, a failed TLS handshake) must read as not_sent, and
// a connection lost after sending as unknown. Real sockets on loopback; `.invalid` never resolves.
await check('connection failures: not_sent before the request could leave, unknown after, each naming its call', async () => {
  const tls = createHttpsServer({ key: readFileSync(new URL('test/fixtures/loopback-key.pem', root)), cert: readFileSync(new URL('test/fixtures/loopback-cert.pem', root)) }, (_request, response) => {
    tlsRequests++;
    response.end('{}');
  });
  let tlsRequests = 0;
  await new Promise((resolve) => tls.listen(0, '127.0.0.1', resolve));
  const cut = createServer((request) => request.socket.destroy());
  let cutRequests = 0;
  cut.on('request', () => cutRequests++);
  await new Promise((resolve) => cut.listen(0, '127.0.0.1', resolve));
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const closedPort = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  const plainPort = server.address().port;
  const before = seen.length;
  try {
    const cases = [
      ['a name that does not resolve', 'https://payorch-sdk-test.invalid', 'name_not_resolved', 'not_sent'],
      ['a refused connection', `http://127.0.0.1:${closedPort}`, 'connection_refused', 'not_sent'],
      ['a self-signed certificate', `https://127.0.0.1:${tls.address().port}`, 'tls_handshake', 'not_sent'],
      ['https to a plain-HTTP port', `https://127.0.0.1:${plainPort}`, 'tls_handshake', 'not_sent'],
      ['a connection closed after sending', `http://127.0.0.1:${cut.address().port}`, 'connection_failed', 'unknown'],
    ];
    for (const [name, url, reason, outcome] of cases) {
      const provider = new esm.ProviderClient({ baseUrl: url, ...KEYS, credentialKey: CREDENTIAL, maxRetries: 0 });
      const error = await provider.manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: 'u-1', amount: 250 }).catch((caught) => caught);
      const cause = [];
      for (let current = error?.cause, depth = 0; current && depth < 4; current = current.cause, depth++) cause.push(`${current.code ?? ''} ${current.message}`);
      assert(
        error instanceof esm.ConnectionError && error.reason === reason && error.outcome === outcome,
        `${name}: got ${error?.name} reason ${error?.reason} outcome ${error?.outcome}; causes: ${JSON.stringify(cause)}`,
      );
      assert(error.request?.url === `${url}/api/provider/start-manual-deposit` && error.message.startsWith('POST /api/provider/start-manual-deposit (provider.manual.startDeposit): '), `${name}: ${error.message}`);
    }
    assert(tlsRequests === 0 && seen.length === before, 'a server received a request that should never have left');
    assert(cutRequests === 1, `the closing server received ${cutRequests} requests`);
  } finally {
    tls.close();
    cut.close();
  }
});

await check('ESM and CommonJS builds agree on the error classes they export', () => {
  const names = (sdk) => Object.keys(sdk).filter((name) => name.endsWith('Error')).sort().join(',');
  assert(names(esm) === names(cjs), `${names(esm)} != ${names(cjs)}`);
});

// dist/ carries its own (bundled) copy of zod's runtime: an app's zod must still compose the
// schemas of payorch/schemas, recognise them and their errors (docs/decisions.md, Dependencies).
await check("an app's own zod composes the schemas of payorch/schemas", async () => {
  const z = await import('zod');
  const welcome = { success: true, message: 'Welcome', provider: { id: 1, name: 'Smoke', is_active: true } };
  for (const [label, sdk] of [['ESM', schemasEsm], ['CommonJS', schemasCjs]]) {
    // zod/mini schemas: zod's core types to the app's classic zod, with parse and safeParse of their own.
    assert(sdk.Welcome instanceof z.core.$ZodType && sdk.Welcome instanceof z.core.$ZodObject, `${label}: Welcome is not a zod object to the app's zod`);
    assert(z.object({ answer: sdk.Welcome }).parse({ answer: welcome }).answer.provider.name === 'Smoke', `${label}: z.object({ answer: Welcome })`);
    assert(z.array(sdk.Welcome).parse([welcome]).length === 1, `${label}: z.array(Welcome)`);
    assert(z.union([sdk.Welcome, z.string()]).parse('text') === 'text', `${label}: z.union`);
    assert(z.object({ order: z.string() }).extend(sdk.Welcome.shape).parse({ ...welcome, order: 'o-1' }).order === 'o-1', `${label}: .extend(Welcome.shape)`);
    const refused = z.object({ answer: sdk.Welcome }).safeParse({ answer: { success: true } });
    assert(!refused.success && refused.error instanceof z.ZodError && z.prettifyError(refused.error).includes('answer'), `${label}: the refusal is a ZodError naming the field`);
    const own = sdk.Welcome.safeParse(42);
    // zod/mini refuses with zod's core error class (classic adds methods to its subclass only).
    assert(!own.success && own.error instanceof z.core.$ZodError, `${label}: payorch's own refusal is a zod error to the app`);
  }
});

for (const [label, load] of [
  ['ESM import', () => import(new URL(entry('payorch/sandbox').esm, root).href)],
  ['CommonJS require', () => createRequire(import.meta.url)(new URL(entry('payorch/sandbox').cjs, root).pathname)],
]) {
  await check(`${label}: payorch/sandbox listens and answers both clients`, async () => {
    const { createSandbox } = await load();
    const sandbox = createSandbox();
    const running = await sandbox.listen();
    try {
      const { apiKey, secretKey, sites } = sandbox.accounts.provider;
      const provider = new esm.ProviderClient({ baseUrl: running.url, apiKey, secretKey, credentialKey: sites[0].credentialKey });
      const welcome = await provider.welcome();
      assert(welcome.success === true, `welcome: ${JSON.stringify(welcome)}`);
      const deposit = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
      assert(deposit.data.status === 'showing', `deposit: ${JSON.stringify(deposit)}`);
      const dealer = new esm.DealerClient({ baseUrl: running.url, ...sandbox.accounts.dealer });
      const settings = await dealer.settings.get();
      assert(typeof settings.dealer_name === 'string', `settings: ${JSON.stringify(settings)}`);
    } finally {
      await running.close();
    }
  });
}

// package.json `exports` gives Node dist/webhooks/node.js, whose functions load the rest with
// require() on their first call; Bun and Deno get the whole entry (Bun, in this repository, the
// source through tsconfig.json's paths).
await check('payorch/webhooks as this runtime resolves it: Node the file that loads the rest on first use, with the same classes and results', async () => {
  const resolved = import.meta.resolve('payorch/webhooks');
  const expected = runtime.startsWith('node') ? 'dist/webhooks/node.js' : runtime.startsWith('deno') ? 'dist/webhooks/index.js' : undefined;
  assert(expected === undefined ? !resolved.endsWith('/dist/webhooks/node.js') : resolved.endsWith(`/${expected}`), `payorch/webhooks resolved to ${resolved}`);
  if (expected === undefined) return;
  const webhooks = await import('payorch/webhooks');
  const signed = webhooks.signCallback({ tracking_code: 'MAN-smoke3-1763812000', status: 'completed', amount: 250, user_id: 'u-1' }, KEYS);
  assert(webhooks.verifyCallback(signed, KEYS).kind === 'deposit', 'a signed callback was refused');
  let refused;
  try {
    webhooks.verifyCallback({ headers: signed.headers, body: signed.body.replace('"completed"', '"canceled"') }, KEYS);
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof esm.CallbackVerificationError && webhooks.PayorchError === esm.PayorchError, `got ${refused?.name}: ${refused?.message}`);
});

const secretChecks = await openSecretChecks(root);
try {
  await check(...secretChecks.selfCheck);
  for (const [label, sdk] of [['ESM import', esm], ['CommonJS require', cjs]]) {
    for (const [name, run] of secretChecks.checks(sdk)) await check(`${label}: ${name}`, run);
  }
} finally {
  secretChecks.close();
}

server.close();
console.log(`${runtime}: ${passed} passed, ${failed} failed`);
if (typeof process !== 'undefined') process.exitCode = failed > 0 ? 1 : 0;
