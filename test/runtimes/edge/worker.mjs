// Cloudflare Workers module syntax (workerd through miniflare).
import { handle } from './checks.mjs';

export default { fetch: (request) => handle(request) };
