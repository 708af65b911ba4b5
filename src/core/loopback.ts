/**
 * Whether a URL's hostname is this machine's loopback: the one place plain http is allowed
 * without `allowInsecureHttp` (the hash covers no part of the body, so anyone on a real network
 * path could change an amount). The sandbox's Host guard has its own, wider rule (`*.localhost`),
 * because there the question is what a DNS-rebinding page cannot claim, not where a request goes.
 */
export function isLoopbackHostname(hostname: string): boolean {
  return /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i.test(hostname);
}
