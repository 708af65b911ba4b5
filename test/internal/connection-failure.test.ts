import { describe, expect, test } from 'vitest';
import { connectionFailure } from '../../src/internal/connection-failure.js';
import type { ConnectionFailureReason } from '../../src/index.js';

/*
 * Where a failed fetch broke, from the errors each runtime's fetch throws, as observed on loopback
 * (Node 20 undici, Bun 1.4, Deno 2.9; test/runtimes/smoke.mjs makes them for real on each runtime).
 * Only a recognised sign of a failure before sending may read as one: anything else must stay
 * connection_failed, which keeps a payment's outcome unknown.
 */

const withCode = (message: string, code?: string, cause?: unknown): Error => Object.assign(new (code === undefined ? Error : TypeError)(message, cause === undefined ? undefined : { cause }), code === undefined ? {} : { code });
const node = (code: string, message: string) => new TypeError('fetch failed', { cause: withCode(message, code) });
// Node's error for a connect that failed: `connect <CODE> <address>:<port>`, with its syscall.
const connecting = (code: string, address: string, port: number) => Object.assign(withCode(`connect ${code} ${address}:${port}`, code), { syscall: 'connect', address, port });
const deno = (url: string, detail: string) => new TypeError('fetch failed', { cause: new Error(`error sending request for url (${url}): client error (${detail})`) });

const ROWS: readonly (readonly [string, unknown, ConnectionFailureReason])[] = [
  ['Node: a name that does not resolve', node('ENOTFOUND', 'getaddrinfo ENOTFOUND payorch-test.invalid'), 'name_not_resolved'],
  ['Node: a resolver that cannot answer now', node('EAI_AGAIN', 'getaddrinfo EAI_AGAIN pay.example.com'), 'name_not_resolved'],
  ['Node: a refused connection', node('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:47999'), 'connection_refused'],
  ['Node: every address refused', new TypeError('fetch failed', { cause: new AggregateError([withCode('connect ECONNREFUSED ::1:443', 'ECONNREFUSED'), withCode('connect ECONNREFUSED 127.0.0.1:443', 'ECONNREFUSED')]) }), 'connection_refused'],
  ['Node: a connection never established', node('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'), 'connect_timeout'],
  ['Node: no route to the host while connecting', new TypeError('fetch failed', { cause: connecting('EHOSTUNREACH', '2001:db8::1', 443) }), 'host_unreachable'],
  ['Node: no route to the network while connecting', new TypeError('fetch failed', { cause: connecting('ENETUNREACH', '10.9.8.7', 443) }), 'host_unreachable'],
  ['Node: no route to the host once connected (after sending)', new TypeError('fetch failed', { cause: Object.assign(withCode('read EHOSTUNREACH', 'EHOSTUNREACH'), { syscall: 'read' }) }), 'connection_failed'],
  ['Node: no route, without a syscall', node('EHOSTUNREACH', 'EHOSTUNREACH'), 'connection_failed'],
  ['Node: a connect the system timed out', new TypeError('fetch failed', { cause: connecting('ETIMEDOUT', '10.9.8.7', 443) }), 'connect_timeout'],
  ['Node: a read the system timed out (after sending)', new TypeError('fetch failed', { cause: Object.assign(withCode('read ETIMEDOUT', 'ETIMEDOUT'), { syscall: 'read' }) }), 'connection_failed'],
  ['Node: every address failed, IPv6 unreachable and IPv4 refused', new TypeError('fetch failed', { cause: new AggregateError([connecting('EHOSTUNREACH', '2001:db8::1', 443), connecting('ECONNREFUSED', '10.9.8.7', 443)]) }), 'host_unreachable'],
  ['Node: every address tried, one of them failing after sending', new TypeError('fetch failed', { cause: new AggregateError([connecting('EHOSTUNREACH', '2001:db8::1', 443), withCode('other side closed', 'UND_ERR_SOCKET')]) }), 'connection_failed'],
  ['Node: a self-signed certificate', node('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'tls_handshake'],
  ['Node: a certificate for another host', node('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), 'tls_handshake'],
  ['Node: https to a plain-HTTP port', node('ERR_SSL_WRONG_VERSION_NUMBER', 'ssl3_get_record:wrong version number'), 'tls_handshake'],
  ['Node: a connection closed after sending', node('UND_ERR_SOCKET', 'other side closed'), 'connection_failed'],
  ['Node: a reset after sending', node('ECONNRESET', 'read ECONNRESET'), 'connection_failed'],
  ['Node: a reset while connecting', new TypeError('fetch failed', { cause: Object.assign(withCode('connect ECONNRESET 127.0.0.1:47999', 'ECONNRESET'), { syscall: 'connect' }) }), 'connection_refused'],
  ['Node: a reset on a socket that is not connecting', new TypeError('fetch failed', { cause: Object.assign(withCode('read ECONNRESET', 'ECONNRESET'), { syscall: 'read' }) }), 'connection_failed'],
  ['Node: a TLS server that closes during the handshake', node('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'), 'tls_handshake'],
  ['Bun: a name that does not resolve', withCode('getaddrinfo ENOTFOUND payorch-test.invalid', 'ENOTFOUND'), 'name_not_resolved'],
  ['Bun: a refused connection', withCode('ECONNREFUSED: Unable to connect. Is the computer able to access the url?', 'ECONNREFUSED'), 'connection_refused'],
  ['Bun (older): a refused connection', withCode('Unable to connect. Is the computer able to access the url?', 'ConnectionRefused'), 'connection_refused'],
  ['Bun: no route to the host', withCode('EHOSTUNREACH: Unable to connect. Is the computer able to access the url?', 'EHOSTUNREACH'), 'host_unreachable'],
  ['Bun: no route, not while connecting', withCode('EHOSTUNREACH: the connection broke', 'EHOSTUNREACH'), 'connection_failed'],
  ['Bun: a self-signed certificate', withCode('self signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls_handshake'],
  ['Bun: https to a plain-HTTP port', withCode('EPROTO: The TLS handshake failed. Does the server speak TLS on this port?', 'EPROTO'), 'tls_handshake'],
  ['Bun: a protocol error that is not the handshake', withCode('EPROTO: unexpected data', 'EPROTO'), 'connection_failed'],
  ['Bun: a reset after sending', withCode('The socket connection was closed unexpectedly.', 'ECONNRESET'), 'connection_failed'],
  ['Deno: a name that does not resolve', deno('https://payorch-test.invalid/x', 'Connect): dns error: failed to lookup address information: Name or service not known'), 'name_not_resolved'],
  ['Deno: a refused connection', deno('http://127.0.0.1:47999/x', 'Connect): tcp connect error: Connection refused (os error 111)'), 'connection_refused'],
  ['Deno: no route to the host', deno('https://[2001:db8::1]/x', 'Connect): tcp connect error: No route to host (os error 113)'), 'host_unreachable'],
  ['Deno: no route to the network', deno('https://10.9.8.7/x', 'Connect): tcp connect error: Network is unreachable (os error 101)'), 'host_unreachable'],
  ['Deno: a self-signed certificate', deno('https://127.0.0.1:47443/x', 'Connect): invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))'), 'tls_handshake'],
  ['Deno: https to a plain-HTTP port', deno('https://127.0.0.1:47080/x', 'Connect): received corrupt message of type InvalidContentType'), 'tls_handshake'],
  ['Deno: a reset while connecting', deno('http://127.0.0.1:47082/x', 'Connect): tcp connect error: Connection reset by peer (os error 104)'), 'connection_refused'],
  ['Deno: a connection closed after sending', deno('http://127.0.0.1:47081/x', 'SendRequest): connection closed before message completed'), 'connection_failed'],
  ['Deno: a reset after sending', deno('http://127.0.0.1:47081/x', 'SendRequest): connection error: Connection reset by peer (os error 104)'), 'connection_failed'],
  // Thrown by fetch itself, before it tries to connect.
  ['Deno: no --allow-net for the host', Object.assign(new Error('Requires net access to "pay.example.com:443", run again with the --allow-net flag'), { name: 'NotCapable' }), 'not_permitted'],
  ['Deno 1: no --allow-net for the host', Object.assign(new Error('Requires net access to "pay.example.com:443", run again with the --allow-net flag'), { name: 'PermissionDenied' }), 'not_permitted'],
  ['Node: a port fetch blocks', new TypeError('fetch failed', { cause: new Error('bad port') }), 'not_permitted'],
  ['Deno: a port fetch blocks', new TypeError('Fetch failed: Requests to port 6000 are blocked'), 'not_permitted'],
  ['Node 26: --permission without --allow-net', node('ERR_ACCESS_DENIED', 'connect ERR_ACCESS_DENIED Access to this API has been restricted. Use --allow-net to manage permissions.'), 'not_permitted'],
  ['a test double (msw): "Failed to fetch"', new TypeError('Failed to fetch'), 'connection_failed'],
  ['a value that is not an error', 'boom', 'connection_failed'],
];

describe('connectionFailure', () => {
  test.each(ROWS.map(([name, error, reason]) => [name, reason, error] as const))('%s reads as %s', (_name, reason, error) => {
    expect(connectionFailure(error)).toBe(reason);
  });
});

describe('connectionFailure through a custom fetch, which may have followed a redirect', () => {
  const refusedAt = (address: string, port: number) => new TypeError('fetch failed', { cause: Object.assign(withCode(`connect ECONNREFUSED ${address}:${port}`, 'ECONNREFUSED'), { address, port }) });
  const unresolved = (hostname: string) => new TypeError('fetch failed', { cause: Object.assign(withCode(`getaddrinfo ENOTFOUND ${hostname}`, 'ENOTFOUND'), { hostname }) });
  const DESTINATION_ROWS: readonly (readonly [string, string, unknown, ConnectionFailureReason])[] = [
    ['a refusal by the service itself', 'http://127.0.0.1:4010/api/provider/welcome', refusedAt('127.0.0.1', 4010), 'connection_refused'],
    ['a refusal by the service on IPv6', 'http://[::1]:4010/api/provider/welcome', refusedAt('::1', 4010), 'connection_refused'],
    ['a refusal on the default port', 'https://10.0.0.5/api/provider/welcome', refusedAt('10.0.0.5', 443), 'connection_refused'],
    ['a refusal by another port (a redirect target)', 'http://127.0.0.1:4010/api/provider/welcome', refusedAt('127.0.0.1', 4011), 'connection_failed'],
    ['a refusal that names no address', 'http://127.0.0.1:4010/api/provider/welcome', node('ECONNREFUSED', 'connect ECONNREFUSED'), 'connection_failed'],
    ['a refusal for a named host (its address cannot be told from a redirect target)', 'https://pay.example.com/api/provider/welcome', refusedAt('93.184.216.34', 443), 'connection_failed'],
    ['the service name not resolving', 'https://pay.example.com/api/provider/welcome', unresolved('pay.example.com'), 'name_not_resolved'],
    ['another name not resolving (a redirect target)', 'https://pay.example.com/api/provider/welcome', unresolved('elsewhere.example.com'), 'connection_failed'],
    ['no route to the service itself', 'https://[2001:db8::1]/api/provider/welcome', new TypeError('fetch failed', { cause: connecting('EHOSTUNREACH', '2001:db8::1', 443) }), 'host_unreachable'],
    ['no route to another address (a redirect target)', 'https://[2001:db8::1]/api/provider/welcome', new TypeError('fetch failed', { cause: connecting('EHOSTUNREACH', '2001:db8::2', 443) }), 'connection_failed'],
    ['a failure after sending', 'http://127.0.0.1:4010/api/provider/welcome', node('UND_ERR_SOCKET', 'other side closed'), 'connection_failed'],
  ];
  test.each(DESTINATION_ROWS)('%s (%s) reads as %s', (_name, url, error, reason) => {
    expect(connectionFailure(error, new URL(url))).toBe(reason);
  });
});
