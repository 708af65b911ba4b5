// `npm run test:edge`: the BUILT package (dist/) in edge runtimes, bundled as users bundle a
// worker (esbuild, platform neutral, the edge conditions), then run in workerd through miniflare
// WITHOUT nodejs_compat and in Vercel's edge-runtime; then the `npm pack` tarball installed in a
// Next.js app whose App Router route handler says `runtime = 'edge'` (built with `next build`, run
// with `next start`; `--no-next` skips it; Next.js is installed once into node_modules/.cache). In each: a signed ProviderClient call to a
// loopback server (its exact signed headers asserted here), a refused wrong secret,
// verifyCallbackRequest and verifyCallback of a callback signed here by hand with node:crypto,
// a refused wrong secret for the callback, and a deferred job sealed there (its HMAC checked here
// with node:crypto) applied once and refused when changed. Also asserts that the main entry's bundle holds no
// `node:` import and picks the pure-JS SHA-256. Exits 1 on any failure.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { EdgeRuntime } from 'edge-runtime';
import { Miniflare } from 'miniflare';
import { canonical } from './canonical.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
if (!existsSync(join(root, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first');

const KEYS = { apiKey: 'edge_api_key_0001', secretKey: 'edge_secret_ğüş_0001', credentialKey: 'edge_site_credential_01' };
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The edge conditions of the bundlers that build workers (wrangler, Next.js, Vercel). */
const CONDITIONS = ['workerd', 'worker', 'edge-light', 'browser'];

let failed = 0;
function check(name, condition, detail) {
  console.log(`  ${condition ? 'ok  ' : 'FAIL'}  ${name}${condition ? '' : `\n        ${detail}`}`);
  if (!condition) failed++;
}

// payorch is resolved as an installed package is: through node_modules/payorch and its exports map.
const work = mkdtempSync(join(tmpdir(), 'payorch-edge-'));
mkdirSync(join(work, 'node_modules'));
symlinkSync(root, join(work, 'node_modules/payorch'), 'dir');

async function bundle(entry, format) {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`edge/${entry}`, import.meta.url))],
    bundle: true,
    write: false,
    format,
    platform: 'neutral',
    conditions: CONDITIONS,
    mainFields: ['module', 'main'],
    nodePaths: [join(work, 'node_modules'), join(root, 'node_modules')],
    metafile: true,
    // Not the repository's tsconfig, whose `paths` point 'payorch' at the sources.
    tsconfigRaw: '{}',
    logLevel: 'error',
  });
  return { code: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) };
}

// The loopback service: records each request, answers by path, checks the hash as spec 5.1 says.
const received = [];
const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const { headers } = request;
    const signed = headers['x-hash'] === sha256(`${headers['x-api-key']}${KEYS.secretKey}${headers['x-credential-key'] ?? ''}${headers['x-timestamp']}`);
    received.push({ method: request.method, path: request.url, headers, body, signed });
    const answer =
      signed && request.url === '/api/provider/start-manual-deposit'
        ? { success: true, data: { tracking_code: 'MAN-edge01-1763812000', payment_url: 'https://pay.example/MAN-edge01', amount: 250, status: 'showing' } }
        : { success: false, error: signed ? 'Not found' : 'Invalid hash' };
    response.writeHead(signed ? (answer.success ? 200 : 404) : 401, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

/** A deposit callback (spec 6.2) signed here, by hand, as the service signs it (spec 5.3). */
function signedCallback() {
  const timestamp = Math.floor(Date.now() / 1000);
  const fields = { tracking_code: 'MAN-edge01-1763812000', tx_id: 'tx-1', status: 'completed', amount: 250, username: 'ada', fullname: 'Ada', user_id: 'u-1', site_id: 7 };
  const hash = sha256(`${KEYS.apiKey}${KEYS.secretKey}${fields.tracking_code}${fields.status}${timestamp}`);
  return { fields, timestamp, hash, body: JSON.stringify({ ...fields, timestamp, hash }) };
}

async function runIn(label, dispatch) {
  console.log(`\n==> ${label}`);
  const callback = signedCallback();
  const from = received.length;
  const started = Date.now();
  const response = await dispatch('http://edge.test/callback', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': KEYS.apiKey,
      'x-timestamp': String(callback.timestamp),
      'x-hash': callback.hash,
      'x-edge-check': encodeURIComponent(JSON.stringify({ baseUrl, ...KEYS, callback: { tracking_code: callback.fields.tracking_code, status: callback.fields.status, timestamp: callback.timestamp } })),
    },
    body: callback.body,
  });
  const report = await response.json();
  if (response.status !== 200) {
    check('the checks ran', false, JSON.stringify(report, null, 2));
    return;
  }
  const [deposit, wrong, ...rest] = received.slice(from);
  check('no Buffer in this runtime (the check means something)', report.globals.Buffer === 'undefined', `typeof Buffer is ${report.globals.Buffer}`);
  const timestamp = Number(deposit?.headers['x-timestamp']);
  const expectedHeaders = {
    accept: 'application/json',
    'content-type': 'application/json',
    'x-api-key': KEYS.apiKey,
    'x-credential-key': KEYS.credentialKey,
    'x-timestamp': String(timestamp),
    'x-hash': sha256(`${KEYS.apiKey}${KEYS.secretKey}${KEYS.credentialKey}${timestamp}`),
  };
  const sentHeaders = Object.fromEntries(Object.keys(expectedHeaders).map((name) => [name, deposit?.headers[name]]));
  check(
    'ProviderClient: the server received the exact signed headers and body',
    deposit?.method === 'POST' &&
      deposit.path === '/api/provider/start-manual-deposit' &&
      JSON.stringify(sentHeaders) === JSON.stringify(expectedHeaders) &&
      Math.abs(timestamp - started / 1000) < 120 &&
      deposit.body === '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}',
    JSON.stringify({ sentHeaders, expectedHeaders, body: deposit?.body }),
  );
  check('ProviderClient: the answer is parsed', report.deposit?.status === 'showing' && report.trackingCode?.prefix === 'MAN', JSON.stringify(report.deposit));
  check(
    'ProviderClient: a wrong secret is refused by the service as AuthenticationError',
    wrong?.signed === false && report.wrongSecretCall.isAuthenticationError && report.wrongSecretCall.status === 401 && rest.length === 0,
    JSON.stringify({ wrong: wrong?.path, rest: rest.length, error: report.wrongSecretCall }),
  );
  check('verifyCallbackRequest accepts the signed callback', report.verifyCallbackRequest?.kind === 'deposit' && report.verifyCallbackRequest.status === 'completed', JSON.stringify(report.verifyCallbackRequest));
  check('verifyCallback accepts the signed callback', report.verifyCallback?.kind === 'deposit' && report.verifyCallback.amount === 250, JSON.stringify(report.verifyCallback));
  check(
    'verifyCallback decodes a windows-1254 body by its charset, and reads one without a charset',
    report.charset?.declared === 'Şükrü İğdır' && report.charset.undeclared === 'Þükrü Ýðdýr',
    JSON.stringify(report.charset),
  );
  check(
    'verifyCallback refuses a wrong secret (CallbackVerificationError, invalid_signature, 401)',
    report.wrongSecretCallback.isCallbackVerificationError && report.wrongSecretCallback.reason === 'invalid_signature' && report.wrongSecretCallback.status === 401,
    JSON.stringify(report.wrongSecretCallback),
  );
  const { job, ...sealed } = report.sealedJob ?? {};
  const { seal, ...fields } = job ?? {};
  const mac = createHmac('sha256', KEYS.secretKey).update(`payorch job seal\n${canonical(fields)}`, 'utf8').digest('hex');
  check(
    'a deferred job is sealed with the HMAC node:crypto computes, applied once, and refused when changed in the queue',
    sealed.status === 200 && seal?.mac === mac && JSON.stringify(sealed.applied) === '[250]' && sealed.changed?.reason === 'invalid_signature',
    JSON.stringify({ sealed, seal, mac }),
  );
  check('signCallback computes the hash node:crypto computes', report.signCallbackHash === callback.hash, `${report.signCallbackHash} != ${callback.hash}`);
}

/** Builds and starts the Next.js app with payorch from the tarball, runs the checks through its route. */
async function nextEdgeRoute() {
  const app = join(root, 'node_modules/.cache/payorch-next-edge');
  const npm = (args) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
  const started = Date.now();
  cpSync(fileURLToPath(new URL('edge/next/', import.meta.url)), app, { recursive: true });
  cpSync(fileURLToPath(new URL('edge/checks.mjs', import.meta.url)), join(app, 'app/api/callback/checks.mjs'));
  if (!existsSync(join(app, 'node_modules/next'))) npm(['install']);
  const tarball = join(work, execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop());
  npm(['install', '--no-save', tarball]);
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  execFileSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { cwd: app, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  const next = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'start', '-H', '127.0.0.1', '-p', String(port)], { cwd: app, env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      next.stdout.on('data', (chunk) => String(chunk).includes('Ready') && resolve());
      next.on('exit', (code) => reject(new Error(`next start exited with ${code}`)));
    });
    await runIn(`Next.js 16 App Router route, runtime = 'edge' (installed and built in ${Math.round((Date.now() - started) / 1000)} s)`, (_url, init) =>
      fetch(`http://127.0.0.1:${port}/api/callback`, init),
    );
  } finally {
    next.kill();
  }
}

try {
  console.log('==> the main entry bundled for the edge (esbuild --platform=neutral --conditions=workerd,worker,edge-light,browser)');
  const worker = await bundle('worker.mjs', 'esm');
  const script = await bundle('service-worker.mjs', 'iife');
  for (const { code, inputs } of [worker, script]) {
    // node:crypto is only ever taken through process.getBuiltinModule where the runtime has it:
    // the bundle names it in a string, never in an import or a require.
    const nodeImports = inputs.filter((input) => input.startsWith('node:') || /(^|\/)dist\/(sandbox|cli)/.test(input));
    check(`no node: import, no sandbox, no CLI in the bundle (${inputs.length} modules)`, nodeImports.length === 0 && !/(from|import|require)[ (]*["']node:/.test(code), nodeImports.join(', '));
    check('the pure-JS SHA-256 is in the bundle, for runtimes without node:crypto', code.includes('computeTables'));
  }

  // workerd, with no compatibility flags at all: no nodejs_compat.
  const mf = new Miniflare({ modules: true, script: worker.code, compatibilityDate: '2025-09-01' });
  try {
    await runIn('workerd (miniflare 4), no nodejs_compat', (url, init) => mf.dispatchFetch(url, init));
  } finally {
    await mf.dispose();
  }

  const runtime = new EdgeRuntime({ initialCode: script.code });
  await runIn('edge-runtime (Vercel)', (url, init) => runtime.dispatchFetch(url, init));

  if (!process.argv.includes('--no-next')) await nextEdgeRoute();
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}

console.log(failed === 0 ? '\nedge: all checks passed' : `\nedge: ${failed} check(s) failed`);
process.exitCode = failed === 0 ? 0 : 1;
