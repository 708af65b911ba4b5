/** Written in at build time by tsup's `define` (tsup.config.ts), and by vitest's for tests run from source. */
declare const __PAYORCH_VERSION__: string | undefined;

/**
 * What every request says it is, as stripe-node and openai-node do: `payorch/0.1.0`, then the
 * runtime where it names itself in one short token (`Node.js/22`, `Bun/1.3.2`, `Deno/2.5.6`,
 * `Cloudflare-Workers`). A browser's own user agent is long and says nothing new, and a browser
 * drops a User-Agent set by a script anyway.
 */
export function userAgent(): string {
  // Source run without a build (tsx): no define, and no package.json to read in every runtime.
  const version = typeof __PAYORCH_VERSION__ === 'string' ? __PAYORCH_VERSION__ : '0.0.0-dev';
  const runtime = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof runtime === 'string' && /^[\w.-]+(?:\/[\w.-]+)?$/.test(runtime) ? `payorch/${version} ${runtime}` : `payorch/${version}`;
}
