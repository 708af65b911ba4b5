// A Next.js App Router route handler on the edge runtime, as a merchant writes one.
import { handle } from './checks.mjs';

export const runtime = 'edge';

export function POST(request) {
  return handle(request);
}
