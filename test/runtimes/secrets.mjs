// Part of test/runtimes/smoke.mjs, on every runtime it runs on: nothing reachable from an error the
// BUILT package throws holds the secret key, a credential key, an X-Key or a hash the client
// computed. Each failure happens for real on loopback (a refused connection, a name that does not
// resolve, a reset, an untrusted certificate, a timeout, the caller's abort, HTTP errors that echo
// every secret the service saw), once with the key hash (X-Key) and once with the credential hash.
// Each error is read as a user's logger would: util.inspect with every hidden field at any depth,
// String(), the stack and JSON.stringify, of the error and of everything on its cause chain (and
// of an AggregateError's entries). The API key may appear: it is an identifier (docs/decisions.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { inspect } from 'node:util';

const KEYS = { apiKey: 'leakcheck_api_key_2b6c', secretKey: 'leakcheck_secret_key_7f3a' };
const CREDENTIAL_KEY = 'leakcheck_credential_key_91c2';
const X_KEY = 'leakcheck_x_key_5d8e';
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every form the transport redacts these keys in (src/errors/api-error.ts secretForms makes no other of letters, digits and _). */
const formsOf = (value) => [...new Set([value, value.toLowerCase(), value.toUpperCase(), JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])];

/** The error and everything reachable from it through `cause` and an AggregateError's `errors`, with its path. */
function reachable(error) {
  const found = [];
  const visited = new Set();
  const queue = [['error', error]];
  while (queue.length > 0) {
    const [path, node] = queue.shift();
    if (node === undefined || node === null || visited.has(node)) continue;
    found.push([path, node]);
    if (typeof node !== 'object' && typeof node !== 'function') continue;
    visited.add(node);
    queue.push([`${path}.cause`, node.cause]);
    if (Array.isArray(node.errors)) node.errors.forEach((entry, index) => queue.push([`${path}.errors[${index}]`, entry]));
  }
  return found;
}

/** What a logger may print of `node`. A view that throws (a circular JSON) prints its own error instead. */
function views(node) {
  const view = (make) => {
    try {
      return String(make());
    } catch (error) {
      return `(threw: ${error?.message})`;
    }
  };
  return {
    'util.inspect': view(() => inspect(node, { depth: Infinity, showHidden: true })),
    'String': view(() => String(node)),
    'stack': view(() => node.stack),
    'JSON.stringify': view(() => JSON.stringify(node)),
  };
}

/** Each place where one of `secrets` ([name, value] pairs) shows in what `error` reaches. */
export function leaksIn(error, secrets) {
  const leaks = [];
  for (const [path, node] of reachable(error)) {
    for (const [view, text] of Object.entries(views(node))) {
      for (const [name, value] of secrets) {
        if (formsOf(value).some((form) => text.includes(form))) leaks.push(`${view}(${path}) holds ${name}`);
      }
    }
  }
  return leaks;
}

/** Every X-Hash the client could have computed between two instants (seconds), for each of the three hashes. */
function hashesBetween(fromSeconds, toSeconds) {
  const hashes = [];
  for (let timestamp = fromSeconds; timestamp <= toSeconds; timestamp++) {
    for (const [hash, extra] of [['basic', ''], ['key', X_KEY], ['credential', CREDENTIAL_KEY]]) {
      hashes.push([`the ${hash} X-Hash of ${timestamp}`, sha256(`${KEYS.apiKey}${KEYS.secretKey}${extra}${timestamp}`)]);
    }
  }
  return hashes;
}

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

/**
 * Starts the loopback servers; returns the checks ([name, run] pairs, for `sdk`, the ESM or the
 * CommonJS build) and `close()`.
 */
export async function openSecretChecks(root) {
  /** Every X-Hash a server was sent: they must be absent too, whatever clock made them. */
  const received = [];

  // The service echoes everything it can: the hash, the credential key and the X-Key it was sent
  // and the secret key it holds, in its body (JSON or a proxy's HTML) and its headers.
  let echoStatus = 401;
  const echo = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const hash = String(request.headers['x-hash'] ?? '');
      received.push(hash);
      const credential = String(request.headers['x-credential-key'] ?? '');
      const xKey = String(request.headers['x-key'] ?? '');
      const all = `hash ${hash}, credential ${credential}, X-Key ${xKey}, secret ${KEYS.secretKey}`;
      const headers = { 'x-echo-hash': hash, 'x-echo-credential-key': credential, 'x-echo-key': xKey, 'x-echo-secret': KEYS.secretKey, 'www-authenticate': `Hash ${hash}` };
      if (echoStatus === 502) {
        response.writeHead(502, { ...headers, 'content-type': 'text/html' });
        response.end(`<html><body><h1>502 Bad Gateway</h1><pre>${all}</pre></body></html>`);
        return;
      }
      const body = { success: false, error: `Invalid hash: ${all}`, message: all, messages: [`hash ${hash}`, `credential ${credential} ${xKey}`], code: hash, echoed: { headers: request.headers, secret: KEYS.secretKey }, [hash]: credential };
      response.writeHead(echoStatus, { ...headers, 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });

  // Raw TCP servers read the request and then reset it, or never answer.
  const sockets = new Set();
  const tcp = (onRequest) =>
    createNetServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      socket.once('data', (chunk) => {
        const hash = /^x-hash:\s*([0-9a-f]+)/im.exec(String(chunk))?.[1];
        if (hash !== undefined) received.push(hash);
        onRequest(socket);
      });
    });
  // Bun and Deno may lack resetAndDestroy: a close after the request is then the failure.
  const reset = tcp((socket) => (typeof socket.resetAndDestroy === 'function' ? socket.resetAndDestroy() : socket.destroy()));
  let onSilentRequest = () => {};
  const silent = tcp(() => onSilentRequest());

  const tlsOptions = { key: readFileSync(new URL('test/fixtures/loopback-key.pem', root)), cert: readFileSync(new URL('test/fixtures/loopback-cert.pem', root)) };
  let tlsRequests = 0;
  const tls = createHttpsServer(tlsOptions, (_request, response) => {
    tlsRequests++;
    response.end('{}');
  });

  const probe = createServer();
  const closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  const [echoPort, resetPort, silentPort, tlsPort] = await Promise.all([echo, reset, silent, tls].map(listen));

  const connection = (reason) => (sdk, error) => error instanceof sdk.ConnectionError && (reason === undefined || error.reason === reason);
  // An HTTP error is only a test of the echo if the SDK got the echo and redacted it.
  const answered = (status) => (sdk, error) => error instanceof sdk.APIError && error.status === status && JSON.stringify([error.body, error.headers]).includes('[redacted]');
  const kinds = [
    { name: 'a refused connection', baseUrl: `http://127.0.0.1:${closedPort}`, expect: connection('connection_refused') },
    { name: 'a name that does not resolve', baseUrl: 'https://payorch-sdk-test.invalid', expect: connection('name_not_resolved') },
    { name: 'a connection reset after the request', baseUrl: `http://127.0.0.1:${resetPort}`, expect: connection(undefined) },
    { name: 'a certificate the client does not trust', baseUrl: `https://127.0.0.1:${tlsPort}`, expect: connection('tls_handshake') },
    { name: 'a timeout', baseUrl: `http://127.0.0.1:${silentPort}`, options: { timeout: 300 }, expect: (sdk, error) => error instanceof sdk.TimeoutError },
    { name: "the caller's abort", baseUrl: `http://127.0.0.1:${silentPort}`, abort: true, expect: (sdk, error) => error instanceof sdk.RequestAbortedError },
    ...[200, 400, 401, 403, 404, 429, 500, 502, 503].map((status) => ({
      name: status === 502 ? 'HTTP 502 with an HTML page that echoes every secret' : `HTTP ${status} whose body and headers echo every secret`,
      baseUrl: `http://127.0.0.1:${echoPort}`,
      status,
      // A 200 with `success: false` is a refusal too (spec 7).
      expect: status === 200 ? (sdk, error) => error instanceof sdk.APIError && JSON.stringify(error.body).includes('[redacted]') : answered(status),
    })),
  ];
  const calls = [
    ['sites.list (X-Key)', (client, options) => client.sites.list({ key: X_KEY }, options)],
    ['manual.startDeposit (X-Credential-Key)', (client, options) => client.manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: 'u-1', amount: 250 }, options)],
  ];

  const checks = (sdk) =>
    kinds.map((kind) => [
      `no key, credential or hash reachable from the error of ${kind.name}`,
      async () => {
        const problems = [];
        for (const [callName, call] of calls) {
          if (kind.status !== undefined) echoStatus = kind.status;
          const controller = new AbortController();
          onSilentRequest = kind.abort ? () => controller.abort() : () => {};
          const client = new sdk.ProviderClient({ baseUrl: kind.baseUrl, ...KEYS, credentialKey: CREDENTIAL_KEY, maxRetries: 0 });
          const from = Math.floor(Date.now() / 1000) - 2;
          const error = await call(client, { ...kind.options, ...(kind.abort ? { signal: controller.signal } : {}) }).then(
            () => undefined,
            (caught) => caught,
          );
          const secrets = [
            ['the secret key', KEYS.secretKey],
            ['the credential key', CREDENTIAL_KEY],
            ['the X-Key', X_KEY],
            ...received.map((hash) => ['an X-Hash a server received', hash]),
            ...hashesBetween(from, Math.floor(Date.now() / 1000) + 2),
          ];
          if (!kind.expect(sdk, error)) problems.push(`${callName}: unexpected ${error?.name} (${error?.reason ?? error?.status ?? ''}): ${error?.message}`);
          problems.push(...leaksIn(error, secrets).map((leak) => `${callName}: ${leak}`));
        }
        if (tlsRequests > 0) problems.push(`the TLS server answered ${tlsRequests} requests through a certificate the client does not trust`);
        if (problems.length > 0) throw new Error(problems.join('\n'));
      },
    ]);

  // The check itself must see what it looks for: a credential key in a hidden field of a cause
  // and a hash in an AggregateError's entry.
  const selfCheck = [
    'the secrets check finds a key in a hidden field of a cause and a hash in an AggregateError entry',
    () => {
      const hidden = new Error('fetch failed');
      Object.defineProperty(hidden, 'request', { value: { headers: { 'x-credential-key': CREDENTIAL_KEY } }, enumerable: false });
      const hash = sha256('planted');
      const planted = new Error('outer', { cause: new AggregateError([new Error('inner'), new Error(`sent ${hash.toUpperCase()}`)], 'all failed', { cause: hidden }) });
      const leaks = leaksIn(planted, [['the credential key', CREDENTIAL_KEY], ['a planted hash', hash]]);
      const expected = ['util.inspect(error.cause.cause) holds the credential key', 'String(error.cause.errors[1]) holds a planted hash'];
      const missing = expected.filter((leak) => !leaks.includes(leak));
      if (missing.length > 0) throw new Error(`the check missed: ${missing.join('; ')} (found: ${leaks.join('; ')})`);
    },
  ];

  const close = () => {
    for (const socket of sockets) socket.destroy();
    for (const server of [echo, reset, silent, tls]) server.close();
  };
  return { checks, selfCheck, close };
}
