// What the edge checks run INSIDE the edge runtime (workerd, edge-runtime, a Next.js edge route),
// bundled with the built package (dist/). No Node built-in is available here: the bundle must
// not need one. The host (test/runtimes/edge.mjs) sends one POST with the loopback server's URL,
// the keys and a callback it signed by hand with node:crypto; the answer is a JSON report that
// the host checks, together with what its server received.
import {
  CallbackVerificationError,
  AuthenticationError,
  createCallbackReceiver,
  ProviderClient,
  parseTrackingCode,
  signCallback,
  verifyCallback,
  verifyCallbackRequest,
} from 'payorch';

const describe = (error) => (error instanceof Error ? { name: error.name, reason: error.reason, status: error.status, message: error.message } : { thrown: String(error) });

export async function runChecks(request) {
  const { baseUrl, apiKey, secretKey, credentialKey, callback } = JSON.parse(decodeURIComponent(request.headers.get('x-edge-check') ?? '{}'));
  const report = { globals: { Buffer: typeof globalThis.Buffer, process: typeof globalThis.process } };

  const provider = new ProviderClient({ baseUrl, apiKey, secretKey, credentialKey, maxRetries: 0 });
  const deposit = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
  report.deposit = { tracking_code: deposit.data.tracking_code, status: deposit.data.status };
  report.trackingCode = parseTrackingCode(deposit.data.tracking_code);

  const wrong = new ProviderClient({ baseUrl, apiKey, secretKey: `${secretKey}-wrong`, maxRetries: 0 });
  const refused = await wrong.welcome().then(() => undefined, (error) => error);
  report.wrongSecretCall = { ...describe(refused), isAuthenticationError: refused instanceof AuthenticationError };

  // The callback as the service POSTs it: this request's own body and X- headers.
  const raw = await request.clone().text();
  const viaRequest = await verifyCallbackRequest(request, { apiKey, secretKey });
  report.verifyCallbackRequest = { kind: viaRequest.kind, tracking_code: viaRequest.payload.tracking_code, status: viaRequest.payload.status };
  const viaBody = verifyCallback({ headers: request.headers, body: raw }, { apiKey, secretKey });
  report.verifyCallback = { kind: viaBody.kind, amount: viaBody.payload.amount };
  try {
    verifyCallback({ headers: request.headers, body: raw }, { apiKey, secretKey: `${secretKey}-wrong` });
    report.wrongSecretCallback = { accepted: true };
  } catch (error) {
    report.wrongSecretCallback = { ...describe(error), isCallbackVerificationError: error instanceof CallbackVerificationError };
  }

  // The same callback as windows-1254 bytes with Turkish names (older Turkish stacks send those):
  // decoded by the charset Content-Type declares, and, without one, read (as windows-1252), never refused.
  const WINDOWS_1254 = { Ş: 0xde, ü: 0xfc, İ: 0xdd, ğ: 0xf0, ı: 0xfd };
  const turkish = JSON.stringify({ ...JSON.parse(raw), fullname: 'Şükrü İğdır' });
  const bytes = Uint8Array.from(Array.from(turkish, (char) => WINDOWS_1254[char] ?? char.charCodeAt(0)));
  const headersWith = (contentType) => ({ ...Object.fromEntries(request.headers), 'content-type': contentType });
  const declared = verifyCallback({ headers: headersWith('application/json; charset=windows-1254'), body: bytes }, { apiKey, secretKey });
  const undeclared = verifyCallback({ headers: headersWith('application/json'), body: bytes }, { apiKey, secretKey });
  report.charset = { declared: declared.payload.fullname, undeclared: undeclared.payload.fullname };

  // A deferred receiver seals its job here (HMAC-SHA256 without node:crypto): the host checks the
  // seal with node:crypto, and `apply` here applies it once and refuses it with a raised amount.
  const jobs = [];
  const applied = [];
  const receiver = createCallbackReceiver({ apiKey, secretKey, logLevel: 'off', enqueue: async (job) => void jobs.push(JSON.parse(JSON.stringify(job))) });
  receiver.on('*', (each) => void applied.push(each.payload.amount));
  const queued = await receiver.receive({ headers: Object.fromEntries(request.headers), body: raw });
  const [job] = jobs;
  await receiver.apply(job);
  const changed = await receiver.apply({ ...job, payload: { ...job.payload, amount: 999999 } }).then(() => undefined, (error) => error);
  report.sealedJob = { status: queued.status, job, applied, changed: describe(changed) };

  // signCallback here must produce what the host computed with node:crypto.
  const signed = signCallback({ tracking_code: callback.tracking_code, status: callback.status }, { apiKey, secretKey, timestamp: callback.timestamp });
  report.signCallbackHash = signed.headers['X-Hash'];
  return new Response(JSON.stringify(report), { headers: { 'content-type': 'application/json' } });
}

export async function handle(request) {
  try {
    return await runChecks(request);
  } catch (error) {
    return new Response(JSON.stringify({ failed: describe(error), stack: String(error?.stack ?? '') }), { status: 500, headers: { 'content-type': 'application/json' } });
  }
}
