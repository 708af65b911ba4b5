// `npm run examples`: starts a sandbox on a free loopback port, runs every examples/*.ts script
// against it as its own process (with the environment of examples/env.ts), then checks a callback
// end to end: the node:http example receiver (createCallbackReceiver) gets a settled deposit's
// callback and applies it once; the same callback delivered again, with its first signature, is
// acknowledged with 200 and not applied again.
// Prints each example's output and a summary; exits 1 if anything failed.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderClient } from 'payorch';
import type { VerifiedCallback } from 'payorch';
import { createSandbox } from 'payorch/sandbox';
import { start as startReceiver } from '../examples/webhooks/node-http.js';
import { memoryOrders } from '../examples/webhooks/orders.js';
import { exampleEnvironment } from '../src/tools/cli/environment.js';

const root = join(import.meta.dirname, '..');
const TIMEOUT_MS = 60_000;
const CONCURRENCY = 4;
/** Lines of an example's output shown; a transaction listing can run to hundreds. */
const SHOWN_LINES = 12;

interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly ms: number;
  readonly output: string;
}

/** Runs one example in its own Node process, as a user would with `npx tsx examples/<name>`. */
function runExample(name: string, environment: Record<string, string>): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('examples', name)], { cwd: root, env: { ...process.env, ...environment } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ok = code === 0;
      const detail = ok ? 'ok' : signal === 'SIGKILL' ? `timed out after ${TIMEOUT_MS / 1000} s` : `exit code ${code ?? signal ?? '?'}`;
      resolve({ name, ok, detail, ms: Date.now() - started, output });
    });
  });
}

function show(outcome: Outcome): void {
  const lines = outcome.output.trimEnd().split('\n');
  // A failure is shown whole: its end holds the error.
  const shown = outcome.ok && lines.length > SHOWN_LINES ? [...lines.slice(0, SHOWN_LINES), `… ${lines.length - SHOWN_LINES} more lines`] : lines;
  console.log(`\n── ${outcome.name} (${outcome.ok ? 'ok' : `FAILED: ${outcome.detail}`})`);
  console.log(shown.map((line) => `   ${line}`).join('\n'));
}

const WEBHOOK_STEP = 'webhooks/node-http.ts applies a callback once';

/** Settles a deposit, checks that the example receiver applied its callback, then redelivers it. */
async function webhookStep(sandbox: ReturnType<typeof createSandbox>, baseUrl: string): Promise<Outcome> {
  const started = Date.now();
  const name = WEBHOOK_STEP;
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  const verified: VerifiedCallback[] = [];
  const orders = memoryOrders();
  const receiver = await startReceiver({
    apiKey,
    secretKey,
    orderOf: orders.orderOf,
    port: 0,
    onCallback: (callback) => {
      if (callback.source === 'callback') verified.push(callback);
    },
  });
  try {
    sandbox.setCallbackUrls({ deposit: receiver.url, withdrawal: receiver.url, creditCard: receiver.url });
    const provider = new ProviderClient({ baseUrl, apiKey, secretKey, credentialKey: sites[0].credentialKey });
    const { data } = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
    // The order row the receiver confirms the callback against (a deposit of 250, at most 500
    // credited without a person looking); the customer then pays 240.
    orders.save(data.tracking_code, { userId: 'u-1', kind: 'deposit', amount: 250, maxAmount: 500 });
    const { callback } = await sandbox.settle(data.tracking_code, 'completed', { amount: 240 });
    const got = verified.find((each) => each.kind === 'deposit' && each.payload.tracking_code === data.tracking_code);
    const lines = [
      `deposit ${data.tracking_code} settled as completed (amount 240)`,
      `POST ${receiver.url}: ${callback?.attempts.map((attempt) => attempt.httpStatus ?? attempt.error).join(', ') ?? 'not sent'}`,
      got === undefined ? 'the receiver did not apply a callback for it' : `the receiver applied: ${got.kind} ${got.payload.tracking_code} ${got.payload.status} amount=${String(got.payload.amount)}`,
    ];
    let redelivered: number | undefined;
    if (got !== undefined) {
      // The service redelivers what it did not see acknowledged (a lost 200, a timeout): the same
      // body with its first signature, rebuilt here from the verified payload, which keeps every field.
      const { payload } = got;
      const response = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Api-Key': apiKey, 'X-Timestamp': String(payload.timestamp), 'X-Hash': payload.hash },
        body: JSON.stringify(payload),
      });
      redelivered = response.status;
      lines.push(`redelivered the same callback: ${redelivered} ${await response.text()}; applied ${verified.length} time(s) in all`);
    }
    const output = lines.join('\n');
    const ok = callback?.delivered === true && got?.payload.status === 'completed' && got.payload.amount === 240 && redelivered === 200 && verified.length === 1;
    return { name, ok, detail: ok ? 'ok' : 'callback not applied exactly once', ms: Date.now() - started, output };
  } finally {
    await receiver.close();
  }
}

const examples = readdirSync(join(root, 'examples'))
  .filter((name) => name.endsWith('.ts') && name !== 'env.ts')
  .sort();

// Transfers complete after 2 s, so that the send-money example sees an end status.
const sandbox = createSandbox({ transferCompletionSeconds: 2 });
const running = await sandbox.listen({ port: 0 });
const environment = exampleEnvironment(running.url, sandbox.accounts);
console.log(`Sandbox at ${running.url}; running ${examples.length} examples, ${CONCURRENCY} at a time.`);

const outcomes: Outcome[] = [];
try {
  const queue = [...examples];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const outcome = await runExample(name, environment);
        outcomes.push(outcome);
        show(outcome);
      }
    }),
  );
  const webhook = await webhookStep(sandbox, running.url).catch(
    (error: unknown): Outcome => ({ name: WEBHOOK_STEP, ok: false, detail: 'threw', ms: 0, output: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
  outcomes.push(webhook);
  show(webhook);
} finally {
  await running.close();
}

const failed = outcomes.filter((outcome) => !outcome.ok);
console.log('\nSummary');
for (const outcome of [...outcomes].sort((a, b) => a.name.localeCompare(b.name))) {
  console.log(`  ${outcome.ok ? '✓' : '✗'} ${outcome.name.padEnd(48)} ${(outcome.ms / 1000).toFixed(1).padStart(5)} s  ${outcome.ok ? '' : outcome.detail}`);
}
console.log(failed.length === 0 ? `\nAll ${outcomes.length} passed.` : `\n${failed.length} of ${outcomes.length} failed.`);
process.exitCode = failed.length === 0 ? 0 : 1;
