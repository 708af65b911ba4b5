import { constantTimeEqual } from '../../internal/hash/constant-time.js';

/*
 * Who may use the controls and the payment page. They carry no signature, and the sandbox runs
 * on a developer's machine, where any web page the developer opens can make the browser send
 * requests to it. Three attacks, and what stops each (docs/decisions.md has the reasoning):
 * - DNS rebinding (a page's own host name re-pointed at 127.0.0.1, so that it may read the
 *   answers): the Host header must name loopback, the listening host or `publicUrl`'s host.
 * - A cross-site form or no-cors fetch that changes state (settle, clock, redeliver): the JSON
 *   controls take only `Content-Type: application/json`, which no form can send and which makes
 *   a cross-origin fetch ask first (CORS preflight), which the sandbox never allows.
 * - A cross-site post of the payment page's own forms (which must be form-encoded to work
 *   without JavaScript): a random per-sandbox token in the form, plus `Origin` and
 *   `Sec-Fetch-Site` checked when the browser sends them.
 */

/** Where a request came from, as the adapter that received it knows. */
export interface Caller {
  /** The caller's IP address. */
  readonly clientAddress: string;
  /**
   * The request's Host header, when it came over a socket (`listen()`); undefined in process,
   * where no browser sits between the caller and the sandbox.
   */
  readonly host?: string | undefined;
  /** Host names the controls accept besides loopback: the listening host and `publicUrl`'s. */
  readonly allowedHosts?: readonly string[] | undefined;
}

const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i;

/** The host name of a Host header (lower case, no trailing dot), or undefined when it is not a plain host[:port]. */
export function hostnameOf(host: string): string | undefined {
  // Only letters, digits, dots, hyphens and a bracketed IPv6 address: `a@127.0.0.1` and the like
  // would parse to another host than the one a browser resolved.
  const match = HOST.exec(host.trim());
  return match?.[1]?.toLowerCase().replace(/\.$/, '');
}

/** Whether a host name always means this machine: what a rebinding attacker cannot make its own. */
function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]';
}

/** Why the Host header is refused, or undefined when it is one of the sandbox's own names. */
export function hostRefusal(caller: Caller): string | undefined {
  if (caller.host === undefined) return undefined;
  const hostname = hostnameOf(caller.host);
  if (hostname !== undefined && (isLoopbackName(hostname) || (caller.allowedHosts ?? []).includes(hostname))) return undefined;
  const allowed = ['localhost', '127.0.0.1', '[::1]', ...(caller.allowedHosts ?? [])].join(', ');
  return `The sandbox controls answer requests addressed to ${allowed} only, not to Host ${JSON.stringify(caller.host.slice(0, 100))} (a defence against DNS rebinding); set publicUrl to reach it under another name`;
}

/** The media type of a Content-Type header, lower case, without parameters. */
export const mediaType = (request: Request): string => (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * Why a payment-page form post is refused, or undefined: form-encoded, carrying the sandbox's
 * token, and, when the browser says where it came from, from this very origin.
 */
export function formRefusal(request: Request, caller: Caller, token: string | null, expected: string, publicOrigin: string | undefined): string | undefined {
  if (mediaType(request) !== 'application/x-www-form-urlencoded') return 'The payment page posts application/x-www-form-urlencoded forms only';
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return `The payment page takes forms posted from its own pages only, not from a ${site} page`;
  const origin = request.headers.get('origin');
  if (origin !== null) {
    const host = caller.host ?? new URL(request.url).host;
    const same = URL.canParse(origin) && (new URL(origin).host === host.toLowerCase() || new URL(origin).origin === publicOrigin);
    if (!same) return `The payment page takes forms posted from its own origin only, not from ${origin.slice(0, 100)}`;
  }
  if (token === null || !constantTimeEqual(token, expected)) return 'The form token is missing or wrong: reload the payment page and try again';
  return undefined;
}
