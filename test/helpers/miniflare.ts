// Whatever reaches a binding through miniflare's proxy (getWorker, getKVNamespace) waits for its reply.
import './miniflare-proxy.js';
import { createRequire } from 'node:module';
import type * as MiniflareModule from 'miniflare';

/*
 * miniflare, for the tests that run workerd: import it from here, not from 'miniflare'. Its
 * package is one large file of CommonJS; imported from ESM, Node first parses all of it for the
 * names it exports (cjs-module-lexer), which about doubles what loading it costs in each worker.
 * Required, it is only run. The types are the package's own.
 */
const miniflare = createRequire(import.meta.url)('miniflare') as typeof MiniflareModule;

export const { Miniflare } = miniflare;
export type Miniflare = MiniflareModule.Miniflare;
export type { MiniflareOptions, Request } from 'miniflare';
