import type { ConnectionFailureReason } from '../errors/error.js';

/*
 * Where a failed fetch broke, read from what each runtime puts in the error and its causes. Only
 * a sign that the failure came before the connection carried a byte of the request counts as
 * such; anything else is `connection_failed`, which says the service may have the request.
 *
 * - Node (undici): the cause's `code`: ENOTFOUND or EAI_AGAIN from getaddrinfo, ECONNREFUSED,
 *   UND_ERR_CONNECT_TIMEOUT, no route to the host while connecting (EHOSTUNREACH, ENETUNREACH with
 *   syscall `connect`: the same codes on an established connection come after sending), an
 *   AggregateError whose every address failed so (every one refused, or IPv6 unreachable and IPv4
 *   refused), and the codes a
 *   handshake ends with: the certificate checks' (DEPTH_ZERO_SELF_SIGNED_CERT,
 *   ERR_TLS_CERT_ALTNAME_INVALID, ...) and OpenSSL's for a server that does not speak TLS
 *   (ERR_SSL_WRONG_VERSION_NUMBER). A reset while connecting (ECONNRESET with syscall `connect`:
 *   a server that resets what it accepts) and a server that closes during the handshake
 *   (node:tls's "disconnected before secure TLS connection was established") come before any
 *   byte too: undici writes nothing before the connection, TLS included, is made. A bare
 *   "read ECONNRESET" is not among them: it cannot be told from one after sending.
 * - Bun: the same codes on the TypeError itself, with "Unable to connect" for a connection never
 *   made; `ConnectionRefused` in older releases; EPROTO with "The TLS handshake failed" for a
 *   server that does not speak TLS.
 * - Deno: no code; hyper's "client error (Connect)" (older: "error trying to connect") says the
 *   connection, resolution and handshake included, was never made, and the text names which part.
 * - A runtime that does not permit the connection refuses it before trying: Deno without
 *   --allow-net for the host throws "Requires net access to …" (NotCapable; PermissionDenied in
 *   Deno 1), Node under --permission without --allow-net gives ERR_ACCESS_DENIED. So does a port
 *   the Fetch standard blocks (6000, 10080, …): undici's "bad port", Deno's "Requests to port … are
 *   blocked"; Bun does not block them.
 */

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ConnectionRefused']);
const CONNECT_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT']);
// No route to the host, or its network down: before sending only while connecting (whileConnecting).
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
const BUN_CONNECT = /Unable to connect/;
// The verification results OpenSSL reports during a handshake (node:tls names them so).
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);
const TLS_CLOSED_IN_HANDSHAKE = /disconnected before secure TLS connection was established/;
const DENO_CONNECT = /client error \(Connect\)|error trying to connect/;
const DENO_NOT_PERMITTED = /^Requires net access to\b/;
// undici's whole message for a port fetch blocks, and Deno's.
const BLOCKED_PORT = /^bad port$|Requests to port \d+ are blocked/;
const MAX_DEPTH = 5;

/**
 * Where `error`, thrown by fetch, says the connection failed.
 *
 * `destination` is given for a custom fetch, which may have followed a redirect whatever it was
 * told: a failure to connect to the redirect's target comes after the service read the request.
 * There, a failure before sending counts only when the error names the request's own destination
 * (the host name that did not resolve; the address and port refused or not reached when the host
 * is an IP address); anything else is `connection_failed`. The platform's fetch never follows a
 * redirect payorch asks it not to, so without `destination` the signs are taken as they are.
 */
export function connectionFailure(error: unknown, destination?: URL): ConnectionFailureReason {
  const reason = beforeOrAfter(causes(error));
  if (destination === undefined || reason === 'connection_failed') return reason;
  return namesDestination(error, destination, 0) ? reason : 'connection_failed';
}

function beforeOrAfter(chain: readonly Error[]): ConnectionFailureReason {
  if (chain.some(isRefused)) return 'connection_refused';
  for (const current of chain) {
    const code = codeOf(current);
    if (code !== undefined && DNS_CODES.has(code)) return 'name_not_resolved';
    if (code !== undefined && CONNECT_TIMEOUT_CODES.has(code)) return 'connect_timeout';
    if (code === 'ETIMEDOUT' && whileConnecting(current)) return 'connect_timeout';
    if (code !== undefined && UNREACHABLE_CODES.has(code) && whileConnecting(current)) return 'host_unreachable';
    if (code === 'ERR_ACCESS_DENIED' || DENO_NOT_PERMITTED.test(current.message) || BLOCKED_PORT.test(current.message)) return 'not_permitted';
    if (code !== undefined && CERTIFICATE_CODES.has(code)) return 'tls_handshake';
    if (code === 'EPROTO' && /TLS handshake failed/i.test(current.message)) return 'tls_handshake';
    if (TLS_CLOSED_IN_HANDSHAKE.test(current.message)) return 'tls_handshake';
    if (DENO_CONNECT.test(current.message)) return denoConnectFailure(current.message);
    // Every address tried failed before sending: the first one's reason.
    if (current instanceof AggregateError && current.errors.length > 0) {
      const reasons = current.errors.map((entry: unknown) => beforeOrAfter(causes(entry)));
      if (!reasons.includes('connection_failed')) return reasons[0] ?? 'connection_failed';
    }
  }
  return 'connection_failed';
}

/** Node's `syscall` of a failed connect, or Bun's text for a connection it could not make. */
function whileConnecting(current: Error): boolean {
  return (current as { syscall?: unknown }).syscall === 'connect' || BUN_CONNECT.test(current.message);
}

/**
 * Whether `error`, a cause of it or an entry of an AggregateError among them names the host of
 * `destination` (`hostname`, for a name that did not resolve) or its IP address and port
 * (`address` and `port`, where undici and Bun put them).
 */
function namesDestination(error: unknown, destination: URL, depth: number): boolean {
  if (!(error instanceof Error) || depth >= MAX_DEPTH) return false;
  const host = destination.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = Number(destination.port || (destination.protocol === 'https:' ? 443 : 80));
  const { hostname, address, port: errorPort } = error as { hostname?: unknown; address?: unknown; port?: unknown };
  if (typeof hostname === 'string' && hostname.toLowerCase() === host) return true;
  if (typeof address === 'string' && address.toLowerCase() === host && Number(errorPort) === port) return true;
  if (error instanceof AggregateError && error.errors.some((entry: unknown) => namesDestination(entry, destination, depth + 1))) return true;
  return namesDestination(error.cause, destination, depth + 1);
}

function denoConnectFailure(message: string): ConnectionFailureReason {
  // A reset of the TCP connection while it was being made: turned away, as a refusal is.
  if (/connection refused|tcp connect error: connection reset/i.test(message)) return 'connection_refused';
  if (/dns error/i.test(message)) return 'name_not_resolved';
  if (/timed out/i.test(message)) return 'connect_timeout';
  if (/no route to host|network is unreachable|host is down|network is down/i.test(message)) return 'host_unreachable';
  // The rest of a connect failure is the handshake: a certificate refused, a server that does not speak TLS.
  return 'tls_handshake';
}

function isRefused(current: Error): boolean {
  const code = codeOf(current);
  if (code !== undefined && REFUSED_CODES.has(code)) return true;
  // A reset before the connection was made: the server turned it away, as a refusal does.
  if (code === 'ECONNRESET' && whileConnecting(current)) return true;
  return /ECONNREFUSED|connection refused/i.test(current.message);
}

function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = error; current instanceof Error && chain.length < MAX_DEPTH; current = current.cause) chain.push(current);
  return chain;
}

function codeOf(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** What a runtime's network error says of where the connection broke: kept in the copy below. */
const KEPT_FIELDS = ['code', 'errno', 'syscall', 'address', 'port', 'hostname'] as const;

/**
 * A copy of what fetch threw, and of its causes, made of plain errors that hold their name,
 * message, stack and the fields above, every text passed through `redact`. The original may hold
 * the signed request: ky 2 wraps a network failure with its `Request` (X-Hash, X-Key and
 * X-Credential-Key among its headers), and an agent may keep sockets and buffers. The copy is
 * what a `ConnectionError` keeps as its cause, so nothing of the request is reachable from it.
 */
export function detachedCause(error: unknown, redact: (text: string) => string, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth >= MAX_DEPTH) return undefined;
  const cause = detachedCause(error.cause, redact, depth + 1);
  const message = redact(error.message);
  const copy =
    error instanceof AggregateError
      ? new AggregateError(error.errors.map((entry: unknown) => detachedCause(entry, redact, depth + 1)).filter((entry) => entry !== undefined), message, { cause })
      : new Error(message, { cause });
  if (cause === undefined) delete copy.cause;
  copy.name = redact(error.name);
  copy.stack = redact(error.stack ?? `${error.name}: ${error.message}`);
  for (const field of KEPT_FIELDS) {
    const value: unknown = Reflect.get(error, field);
    if (typeof value === 'string') Object.defineProperty(copy, field, { value: redact(value), enumerable: true, writable: true, configurable: true });
    else if (typeof value === 'number') Object.defineProperty(copy, field, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
