#!/usr/bin/env bash
# Checks the package as users get it: publint and attw on the packed files; the tarball's manifest,
# licence, README links and files (scripts/check-packed.mjs); `engines` as npm applies it (refused on
# Node 20, installed on Node 22.12.0); one ky beside an app's ky 2; bundlers (esbuild for the edge
# and for Node) on the installed package; then the `npm pack` tarball installed into fresh consumer
# projects (ESM, CommonJS, TypeScript with node16 and bundler resolution under strict +
# exactOptionalPropertyTypes, at the TypeScript floor and the latest, and with the oldest zod that
# `dependencies` admits) that compile and call welcome() against a local server, and import, require
# and compile every entry of package.json `exports` (scripts/check-entries.mjs). Last, the edge
# bundle sizes and cold start are reported against their targets (not asserted).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# TypeScript 6, the project's: node_modules/.bin/tsc may be typescript7's, which npm links under the same name.
tsc="$repo/node_modules/typescript/bin/tsc"

steps=0
step() { steps=$((steps + 1)); printf '\n==> %s\n' "$*"; }

step "build"
npm run build --silent

step "publint --strict"
npx --no-install publint --strict

# The default profile includes node10 resolution (`moduleResolution: "node"`, still common):
# package.json typesVersions finds every subpath's declarations there, in dist/ or one of its rooms
# (dist/ mirrors src/), so it names no entry: attw checks each entry of `exports` through it.
step "attw --pack . (default profile: node10, node16 CJS and ESM, bundler)"
npx --no-install attw --pack .

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -1)"
echo "$tarball: $(wc -c < "$tarball") bytes"

step "the tarball: no install scripts, LICENSE, metadata, every link of the shipped guides, no unused files"
tar -xzf "$tarball" -C "$work"
node scripts/check-packed.mjs "$work/package"

install() { # dir, packages...
  local dir=$1
  shift
  (cd "$dir" && npm install --no-audit --no-fund --prefer-offline --loglevel=error "$@" >/dev/null)
}

# The same short program in every consumer: a node:http service that answers the connection
# test, and a ProviderClient that calls it.
server_js='
const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    const ok = request.url === "/api/provider/welcome" && /^[0-9a-f]{64}$/.test(String(request.headers["x-hash"]));
    response.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    response.end(JSON.stringify(ok ? { success: true, provider: { id: 1, name: "Consumer", is_active: true } } : { success: false, error: "Invalid hash" }));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
const { port } = server.address() as AddressInfo;
const provider = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "api", secretKey: "secret", maxRetries: 0 });
const welcome = await provider.welcome();
server.close();
if (welcome.provider.name !== "Consumer") throw new Error("unexpected answer");
const invalid = await provider.manual.startDeposit({ fullname: "A", username: "a", user_id: "1", amount: 0 }, { credentialKey: "k" }).catch((error: unknown) => error);
if (!(invalid instanceof RequestValidationError)) throw new Error("no RequestValidationError");
console.log(`${label}: welcome() answered ${welcome.provider.name}`);
'
strip_types() { sed -e 's/ as AddressInfo//' -e 's/(error: unknown)/(error)/'; }

# Once the sandbox is in the package (src/tools/sandbox), every consumer also loads payorch/sandbox and
# calls welcome() through it.
sandbox_js=''
if [[ -d src/tools/sandbox ]]; then
  sandbox_js='
const sandbox = createSandbox();
const running = await sandbox.listen();
const { apiKey: sandboxKey, secretKey: sandboxSecret } = sandbox.accounts.provider;
const viaSandbox = await new ProviderClient({ baseUrl: running.url, apiKey: sandboxKey, secretKey: sandboxSecret }).welcome();
await running.close();
if (viaSandbox.success !== true) throw new Error("the sandbox did not answer welcome()");
console.log(`${label}: payorch/sandbox answered welcome()`);
'
fi
sandbox_import() { [[ -n $sandbox_js ]] && echo "$1" || true; }

step "consumer: ESM (import)"
mkdir -p "$work/esm" && cd "$work/esm"
echo '{ "name": "consumer-esm", "private": true, "type": "module" }' > package.json
install . "$tarball"
{ echo 'import { createServer } from "node:http";'; echo 'import { ProviderClient, RequestValidationError } from "payorch";'; sandbox_import 'import { createSandbox } from "payorch/sandbox";'; echo 'const label = "ESM";'; echo "$server_js$sandbox_js" | strip_types; } > index.js
node index.js

step "bundlers: esbuild for the edge and for Node (no node: import either way; SHA-256 in pure JS where node:crypto is missing)"
echo 'export * from "payorch";' > everything.js
esbuild="$repo/node_modules/.bin/esbuild"
"$esbuild" everything.js --bundle --format=esm --platform=neutral --main-fields=module,main --conditions=workerd,worker,edge-light,browser --metafile=edge.json --outfile=edge.js --log-level=warning
# node:crypto is reached through process.getBuiltinModule where the runtime has it, never imported.
node_import='(from|import|require)[ (]*["'"'"']node:'
if grep -qE "$node_import" edge.js || ! grep -q 'computeTables' edge.js; then echo "the edge bundle imports a Node built-in or lacks the pure-JS hash"; exit 1; fi
"$esbuild" everything.js --bundle --format=esm --platform=node --metafile=node.json --outfile=node-bundle.js --log-level=warning
if grep -qE "$node_import" node-bundle.js || ! grep -q "getBuiltinModule" node-bundle.js; then echo "a Node bundle should take node:crypto through process.getBuiltinModule, not an import"; exit 1; fi
echo "edge bundle: $(wc -c < edge.js) bytes, no node: import; node:crypto taken where the runtime has it"

# `engines` as npm applies it with --engine-strict, under npm itself run by each Node: Node 20 must
# be refused with payorch named in the error, Node 22.12.0 (the floor) must install. Both Nodes come
# from the registry, whatever node this machine has.
step "engines: npm install --engine-strict refuses Node 20 and installs on Node 22.12.0"
npm_cli=${npm_execpath:-$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js}
engine_install() { # dir, node version
  mkdir -p "$1" && cd "$1"
  echo '{ "name": "consumer-engines", "private": true }' > package.json
  npx -y "node@$2" "$npm_cli" install --engine-strict --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" 2>&1
}
if refused=$(engine_install "$work/engines20" 20); then
  echo "$refused"; echo "npm install --engine-strict installed payorch on Node 20"; exit 1
fi
if ! grep -q EBADENGINE <<< "$refused" || ! grep -q 'Not compatible with your version of node/npm: payorch@' <<< "$refused"; then
  echo "$refused"; echo "npm install --engine-strict failed on Node 20, but not with payorch's engine error"; exit 1
fi
grep -E 'EBADENGINE|: payorch@|Required:' <<< "$refused" | sort -u
engine_install "$work/engines22" 22.12.0
echo "Node 22.12.0: installed payorch $(node -p 'require("payorch/package.json").version') with --engine-strict"

# An app that uses ky 2 itself shares payorch's copy: two would double what it loads.
step "consumer: npm install payorch beside ky@^2 keeps one ky"
mkdir -p "$work/ky" && cd "$work/ky"
echo '{ "name": "consumer-ky", "private": true, "type": "module" }' > package.json
install . "$tarball" "ky@^2"
npm ls ky
copies=$(npm ls ky --all --parseable | sort -u | wc -l)
[[ $copies == 1 ]] || { echo "$copies copies of ky are installed"; exit 1; }

step "consumer: CommonJS (require)"
mkdir -p "$work/cjs" && cd "$work/cjs"
echo '{ "name": "consumer-cjs", "private": true }' > package.json
install . "$tarball"
{ echo 'const { createServer } = require("node:http");'; echo 'const { ProviderClient, RequestValidationError } = require("payorch");'; sandbox_import 'const { createSandbox } = require("payorch/sandbox");'; echo 'const label = "CommonJS";'; echo '(async () => {'; echo "$server_js$sandbox_js" | strip_types; echo '})().catch((error) => { console.error(error); process.exit(1); });'; } > index.js
node index.js
# One copy of the SDK across the CommonJS entries: payorch/sandbox requires the chunk payorch
# requires, so its errors are payorch's classes (two inlined copies made instanceof false).
node -e '
const payorch = require("payorch");
const { createSandbox, SandboxError } = require("payorch/sandbox");
createSandbox().settle("MAN-none0001-1795435499", "completed").then(
  () => { console.error("settle of an unknown record succeeded"); process.exit(1); },
  (error) => {
    if (!(error instanceof SandboxError) || !(error instanceof payorch.PayorchError)) { console.error("payorch/sandbox runs its own copy of payorch: its SandboxError is not a payorch.PayorchError"); process.exit(1); }
    console.log("CommonJS: payorch and payorch/sandbox share one SDK (a SandboxError is a payorch.PayorchError)");
  },
);'

# Every entry of package.json `exports` (scripts/entries.mjs), by its name, where the app installed
# none of the optional peers: each loads (or stops at the peer it is named after, payorch/bullmq at
# bullmq), with the values its declarations export and payorch's own objects. A new entry is checked
# here, and in the TypeScript consumer below, without a line in this file.
mapfile -t optional_peers < <(node -p 'const { peerDependencies: ranges, peerDependenciesMeta: meta = {} } = require("'"$repo"'/package.json"); Object.keys(meta).filter((peer) => meta[peer].optional).map((peer) => `${peer}@${ranges[peer]}`).join("\n")')
step "consumer: every entry imported and required, its values as declared, with no optional peer installed"
# Node looks in every node_modules above the consumer: one there that holds a peer voids the check.
for dir in esm cjs; do for peer in "${optional_peers[@]}"; do
  if found=$(cd "$work/$dir" && node -e 'const name = process.argv[1]; const found = require.resolve.paths(name).map((dir) => require("node:path").join(dir, name)).find((path) => require("node:fs").existsSync(path)); if (found) { console.log(found); process.exit(1); }' "${peer%@*}"); then :; else
    echo "${peer%@*} resolves from the $dir consumer ($found): set TMPDIR to a folder with no node_modules above it"; exit 1
  fi
done; done
node "$repo/scripts/check-entries.mjs" "$work/cjs"

# The optional peers are installed here: an adapter's types may name its engine's (payorch/bullmq).
step "consumer: TypeScript (node16 ESM and CommonJS, bundler) beside the optional peers, strict + exactOptionalPropertyTypes"
mkdir -p "$work/ts/src" && cd "$work/ts"
echo '{ "name": "consumer-ts", "private": true, "type": "module" }' > package.json
install . "$tarball" "@types/node@^22" "${optional_peers[@]}"
header='import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ProviderClient, RequestValidationError } from "payorch";
import type { ClientOptions, ProviderClientOptions, Welcome } from "payorch";
// Types users write against: an exact optional must accept a value, and reject undefined where the SDK says so.
const options: ProviderClientOptions = { baseUrl: "https://pay.example.com", apiKey: "a", secretKey: "s", timeout: 5_000 };
const shared: ClientOptions = options;
export const typed: [ClientOptions, Welcome | undefined] = [shared, undefined];'
{ echo "$header"; sandbox_import 'import { createSandbox } from "payorch/sandbox";'; echo 'const label = process.argv[2] ?? "TypeScript";'; echo "$server_js$sandbox_js"; } > src/main.ts
# The CommonJS flavour: a .cts file compiles to require("payorch") and reads index.d.cts.
{ echo 'import { createServer } from "node:http";'; echo 'import type { AddressInfo } from "node:net";'; echo 'import { ProviderClient, RequestValidationError } from "payorch";'; sandbox_import 'import { createSandbox } from "payorch/sandbox";'; echo 'const label = "TypeScript node16 CommonJS";'; echo 'void (async () => {'; echo "$server_js$sandbox_js"; echo '})();'; } > src/cjs.cts
common='"strict": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true, "skipLibCheck": false, "target": "ES2022", "lib": ["ES2022"], "types": ["node"], "rootDir": "src"'
echo "{ \"compilerOptions\": { $common, \"module\": \"node16\", \"moduleResolution\": \"node16\", \"outDir\": \"out-node16\" }, \"include\": [\"src\"] }" > tsconfig.node16.json
# An import of every entry, in ESM (entries.ts) and CommonJS (entries.cts), from scripts/entries.mjs.
node --input-type=module -e '
import { writeFileSync } from "node:fs";
import { ENTRIES } from "'"$repo"'/scripts/entries.mjs";
const names = ENTRIES.map((each, index) => [`entry${index}`, JSON.stringify(each.name)]);
const all = `export const entries = [${names.map(([local]) => local).join(", ")}];\n`;
writeFileSync("src/entries.ts", names.map(([local, name]) => `import * as ${local} from ${name};\n`).join("") + all);
writeFileSync("src/entries.cts", names.map(([local, name]) => `import ${local} = require(${name});\n`).join("") + all);'
echo "{ \"compilerOptions\": { $common, \"module\": \"preserve\", \"moduleResolution\": \"bundler\", \"outDir\": \"out-bundler\" }, \"include\": [\"src/main.ts\", \"src/entries.ts\"] }" > tsconfig.bundler.json
"$tsc" -p tsconfig.node16.json
"$tsc" -p tsconfig.bundler.json
node out-node16/main.js "TypeScript node16 ESM"
node out-node16/cjs.cjs
node out-bundler/main.js "TypeScript bundler"
echo "TypeScript node16 (ESM and CommonJS) and bundler: an import of every entry compiles"
node "$repo/scripts/check-entries.mjs" "$work/ts"

# msw 3 is the current major (an optional peer, 2 or 3): installing payorch beside it must need no
# --legacy-peer-deps. The tests run the sandbox's handlers under both majors (msw and msw2).
step "consumer: npm install payorch beside msw@3, without flags"
mkdir -p "$work/msw3" && cd "$work/msw3"
echo '{ "name": "consumer-msw3", "private": true, "type": "module" }' > package.json
install . "$tarball" "msw@^3"
echo "installed payorch $(node -p 'require("payorch/package.json").version') beside msw $(node -p 'require("msw/package.json").version')"
cd "$work/ts"

# The OpenTelemetry versions docs/observability.md names, installed beside the packed package as
# its install line says: they must resolve together, and a receiver's span and count reach them.
step "consumer: the OpenTelemetry packages the observability guide names"
mkdir -p "$work/otel" && cd "$work/otel"
echo '{ "name": "consumer-otel", "private": true, "type": "module" }' > package.json
otel=$(grep -m1 -E '^npm install @opentelemetry/' "$repo/docs/observability.md" | sed 's/^npm install //')
[[ -n "$otel" ]] || { echo "docs/observability.md has no 'npm install @opentelemetry/...' line"; exit 1; }
# shellcheck disable=SC2086 # the guide's packages, one word each
install . "$tarball" $otel
cat > otel.mjs <<'JS'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createCallbackReceiver, signCallback } from 'payorch';
class Reader extends MetricReader { onShutdown() { return Promise.resolve(); } onForceFlush() { return Promise.resolve(); } }
const spans = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer('consumer');
const reader = new Reader();
const meter = new MeterProvider({ readers: [reader] }).getMeter('consumer');
const keys = { apiKey: 'api', secretKey: 'secret' };
const receiver = createCallbackReceiver({ ...keys, merchantId: 'consumer', tracer, meter });
receiver.on('deposit.completed', async () => undefined);
const { headers, body } = signCallback({ tracking_code: 'MAN-otel-1', tx_id: 'tx-1', status: 'completed', user_id: 'u-1', amount: 250, fullname: 'A B', username: 'ab', site_id: 1 }, keys);
const answer = await receiver.receive({ headers, body });
const { resourceMetrics } = await reader.collect();
const counted = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).some((metric) => metric.descriptor.name === 'payorch.callbacks');
const span = spans.getFinishedSpans().find((each) => each.name === 'callback.receive');
if (answer.status !== 200 || span === undefined || !counted) { console.error('OpenTelemetry consumer:', answer.status, span?.name, counted); process.exit(1); }
console.log(`OpenTelemetry ${process.env.otel}: span ${span.name}, metric payorch.callbacks`);
JS
otel="$otel" node otel.mjs

# The bin as npx runs it from an install: its chunks, its shebang, the version it reads, its sandbox.
step "the payorch command from the installed package, and the README quick start against its sandbox"
cd "$work/esm"
version=$(node -p 'require("'"$repo"'/package.json").version')
[[ "$(npx --no-install payorch --version)" == "payorch $version" ]]
# The README's quick start as a merchant runs it after `npm install payorch`: the sandbox's
# export lines, then the first TypeScript block of the README (plain JavaScript too) as quickstart.mjs.
awk '/^## Quick start/{q=1} q&&/^```ts/{f=1;next} f&&/^```/{exit} f' "$repo/README.md" > quickstart.mjs
# A process group of its own: killing npx alone would leave the sandbox it started serving.
setsid npx --no-install payorch sandbox --port 0 --env > sandbox.env &
sandbox_pid=$!
for _ in $(seq 100); do [[ -s sandbox.env ]] && break; sleep 0.1; done
(. ./sandbox.env && node quickstart.mjs) | tee quickstart.out
# Its second block, receiver.mjs: the merchant's own receiver applies the sandbox's callback.
awk '/^## Quick start/{q=1} q&&/^```ts/{n++; f=(n==2); next} f&&/^```/{exit} f' "$repo/README.md" > receiver.mjs
(. ./sandbox.env && node receiver.mjs) | tee receiver.out
kill -- "-$sandbox_pid"
grep -qE '^MAN-[A-Za-z0-9]+-[0-9]+ http://127\.0\.0\.1:[0-9]+/' quickstart.out || { echo "the README quick start did not print a tracking code and payment_url"; exit 1; }
grep -qE '^applied: deposit MAN-[A-Za-z0-9]+-[0-9]+ completed, 250 TRY for u-1$' receiver.out || { echo "the README quick start's receiver did not apply the sandbox's callback"; exit 1; }
# The installed command's document is the one docs/openapi.json commits (held to the registry by
# test/openapi/document.test.ts), byte for byte: no count of paths to keep here.
npx --no-install payorch openapi > openapi.out
cmp -s openapi.out "$repo/docs/openapi.json" || { echo "payorch openapi from the installed package differs from docs/openapi.json"; diff openapi.out "$repo/docs/openapi.json" | head -20; exit 1; }
echo "payorch openapi: the document of docs/openapi.json, $(node -p 'Object.keys(JSON.parse(require("fs").readFileSync("openapi.out","utf8")).paths).length') paths"

# payorch/testing: the inbox contract, run as a merchant runs it, with no test runner installed,
# against the packed in-memory inbox (its clock a retention behind until the prune).
step "consumer: payorch/testing runs the inbox contract (ESM, CommonJS, TypeScript)"
testing_js='
const store = () => {
  let lag = INBOX_CONTRACT_PRUNE_SECONDS * 1000;
  const inbox = createMemoryInbox({ retentionSeconds: INBOX_CONTRACT_PRUNE_SECONDS, now: () => Date.now() - lag });
  return { inbox: () => inbox, prune: async () => { lag = 0; } };
};
const run = async () => {
  const cases = inboxContract({ store, failCommit: null });
  for (const contractCase of cases) await contractCase.run();
  console.log(`${label}: payorch/testing ran ${cases.length} contract cases on the memory inbox`);
};
void run().catch((error) => { console.error(error); process.exit(1); });
'
(cd "$work/esm" && { echo 'import { createMemoryInbox } from "payorch";'; echo 'import { inboxContract, INBOX_CONTRACT_PRUNE_SECONDS } from "payorch/testing";'; echo 'const label = "ESM";'; echo "$testing_js"; } > testing.js && node testing.js)
(cd "$work/cjs" && { echo 'const { createMemoryInbox } = require("payorch");'; echo 'const { inboxContract, INBOX_CONTRACT_PRUNE_SECONDS } = require("payorch/testing");'; echo 'const label = "CommonJS";'; echo "$testing_js"; } > testing.js && node testing.js)
(cd "$work/ts" && { echo 'import { createMemoryInbox } from "payorch";'; echo 'import { inboxContract, INBOX_CONTRACT_PRUNE_SECONDS } from "payorch/testing";'; echo 'const label = "TypeScript node16";'; echo "$testing_js"; } > src/testing.ts && "$tsc" -p tsconfig.node16.json && node out-node16/testing.js)

# The floor the README states (TypeScript 5.5, zod's own) and the newest release, on the same
# consumer (every file above) with skipLibCheck false: the published declarations must compile on both.
step "consumer: TypeScript 5.5 (the stated floor) and the latest release, node16 and bundler"
cd "$work/ts"
install . "typescript-floor@npm:typescript@~5.5.0" "typescript-latest@npm:typescript@latest"
compilers=("$repo/node_modules/typescript/bin/tsc" "$work/ts/node_modules/typescript-floor/bin/tsc" "$work/ts/node_modules/typescript-latest/bin/tsc")
# Compiles the consumer in this folder with each compiler given, node16 and bundler; $label ends the line.
compile_each() {
  local label=$1
  shift
  for compiler in "$@"; do
    for config in tsconfig.node16.json tsconfig.bundler.json; do
      node "$compiler" -p "$config" --noEmit
    done
    echo "$(node "$compiler" -v)$label: node16 and bundler compile"
  done
}
compile_each "" "${compilers[@]:1}"

# zod's runtime is bundled, so the app's zod meets payorch only through the published types: the
# oldest zod that `dependencies` admits must compile the same consumer on every compiler above,
# and compose payorch/schemas with the app's own zod, typed and at run time.
zod_floor=$(node -p 'require("'"$repo"'/package.json").dependencies.zod.replace(/^\^/, "")')
step "consumer: TypeScript beside zod $zod_floor (the oldest that dependencies admit), node16 and bundler"
mkdir -p "$work/zod-floor" && cd "$work/zod-floor"
echo '{ "name": "consumer-zod-floor", "private": true, "type": "module" }' > package.json
cp -R "$work/ts/src" "$work/ts/tsconfig.node16.json" "$work/ts/tsconfig.bundler.json" .
cat > src/compose.ts <<'TS'
import * as z from "zod";
import { Welcome } from "payorch/schemas";
const Answer = z.object({ answer: Welcome, order: z.string() });
const parsed: { answer: { provider: { name: string } }; order: string } = Answer.parse({ answer: { success: true, provider: { id: 1, name: "P", is_active: true } }, order: "o-1" });
const refused = Answer.safeParse({ answer: { success: true }, order: "o-2" });
if (parsed.answer.provider.name !== "P" || refused.success || !(refused.error instanceof z.ZodError)) throw new Error("the app's zod does not compose payorch/schemas");
console.log(`zod ${z.core.version.major}.${z.core.version.minor}.${z.core.version.patch}: the app's zod composes payorch/schemas`);
TS
install . "$tarball" "zod@$zod_floor" "@types/node@^22" "${optional_peers[@]}"
npm ls zod
if [[ $(npm ls zod --all --parseable | sort -u | wc -l) != 1 || $(node -p 'require("zod/package.json").version') != "$zod_floor" ]]; then
  echo "the consumer does not have one zod at $zod_floor"; exit 1
fi
compile_each " with zod $zod_floor" "${compilers[@]}"
node "${compilers[0]}" -p tsconfig.node16.json
node out-node16/compose.js
node out-node16/main.js "TypeScript node16 ESM, zod $zod_floor"

cd "$repo"
# Size and start-up as users meet them, reported beside their targets (edge bundle of verifyCallback
# alone at most 10 KiB and of both clients + verify + receiver at most 25 KiB, min+gz; cold
# import() and require() at most 1.25x bare node), from bench/figures/bundle.ts with a few paired
# runs: about 15 s. A missed target is printed, not failed (timings are no assertion on a shared
# machine); a measurement that breaks fails the step. `npm run bench` has the full figure.
step "edge bundles and cold start against their targets (reported, not asserted)"
"$repo/node_modules/.bin/tsx" bench/main.ts --quick --summary --only bundle

printf '\npackage: %d steps passed\n' "$steps"
