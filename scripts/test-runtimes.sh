#!/usr/bin/env bash
# Runs test/runtimes/smoke.mjs against the built package (dist/) on Node 22.12.0 (the floor of
# `engines`), the newest Node 22, 24 and 26, Bun and Deno; and the CLI on Node 20, which it names
# unsupported. Every runtime runs even when one fails; the script fails if any did.
set -uo pipefail
cd "$(dirname "$0")/.."

if ! build_log=$(npm run build 2>&1); then echo "$build_log"; exit 1; fi

smoke=test/runtimes/smoke.mjs
failures=()
runs=0
run() {
  local label=$1
  shift
  runs=$((runs + 1))
  printf '\n==> %s\n' "$label"
  if ! "$@" "$smoke"; then failures+=("$label"); fi
}

# `npx -y` fetches each runtime from the npm registry once, then reuses npm's cache. The machine's
# own node is not among them: it may be a line payorch no longer supports.
run "node 22.12.0 (the floor)" npx -y node@22.12.0
run "node 22" npx -y node@22
run "node 24" npx -y node@24
run "node 26" npx -y node@26
run "bun" npx -y bun
# Deno asks before touching the network, files or the environment: grant exactly those. The
# .invalid name is looked up (and never resolves) by the connection-failure and secrets checks.
# Its caches go to a directory of this run: a CommonJS file rebuilt at the same path was once run
# from a stale cache, requiring a chunk of the build before.
deno_dir=$(mktemp -d)
trap 'rm -rf "$deno_dir"' EXIT
run "deno" env DENO_DIR="$deno_dir" npx -y deno run --allow-net=127.0.0.1,payorch-sdk-test.invalid --allow-read=. --allow-env --allow-sys --quiet

# Below the floor: the CLI still runs, and says once, on stderr, that this Node is not supported.
runs=$((runs + 1))
printf '\n==> node 20: the CLI names the unsupported Node once\n'
below_out=$(npx -y node@20 dist/cli.js --version 2>"${deno_dir}/stderr") || true
below_err=$(cat "${deno_dir}/stderr")
echo "$below_err"
if [[ $below_out != "payorch $(node -p 'require("./package.json").version')" || $below_err != "payorch: warning: Node 20."*" is not supported: payorch needs Node 22.12 or later; "* || $(grep -c . <<<"$below_err") != 1 ]]; then
  failures+=("node 20 (the CLI's warning)")
fi

echo
if ((${#failures[@]} > 0)); then
  echo "runtimes: $((runs - ${#failures[@]})) passed, ${#failures[@]} failed: ${failures[*]}"
  exit 1
fi
echo "runtimes: $runs passed, 0 failed"
