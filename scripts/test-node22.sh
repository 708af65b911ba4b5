#!/usr/bin/env bash
# The Node 22 lane: what needs Node 22.12 or later (msw 3, pg-boss 12) runs here under the
# registry's node@22, with test/node22's own lock file; `npm test` stays on the machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/ensure-built.mjs
npm ci --prefix test/node22 --no-audit --no-fund --loglevel=error
# The pg-boss 12 recipe against pg-boss 12's types (the root typecheck has pg-boss 10's).
npx tsc --noEmit -p test/node22/tsconfig.json
exec npx -y node@22 node_modules/vitest/vitest.mjs run --config test/node22/vitest.config.ts "$@"
