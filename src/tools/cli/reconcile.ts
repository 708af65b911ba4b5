import { PayorchError, ProviderClient, RequestValidationError } from 'payorch';
import { eachAtMost } from '../../internal/each-at-most.js';
import { checkTrackingCodes } from '../../webhooks/receiver/reconcile.js';
import { readCardStatus, statusesToApply } from '../../webhooks/status-read.js';
import type { StatusReadResult } from '../../webhooks/status-read.js';
import { assertNever } from '../../internal/assert-never.js';
import { REQUEST_OPTIONS } from '../../core/option-checks.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import { declared, numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, CREDENTIAL_OPTIONS, EXIT_FAILED, EXIT_OK, UsageError, accountKeys, colours, inFlags, parse, printable, requireSetting, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';

const TIMEOUT = declared(REQUEST_OPTIONS, 'timeout');

const USAGE = `Usage: payorch reconcile <tracking code>... [options]

Reads the status of provider card payments (spec 4.9) and says, for each, what
receiver.reconcile would do with it: apply creditCard.<status> through your handlers (once:
not again if its callback or an earlier reconcile applied it), or nothing yet. It applies
nothing itself: the command line has no handlers and no inbox. Exit 1 when a status could not
be read (401, 403, a 5xx, a timeout); an unknown code is reported, not a failure.

Options:
  --base-url <url>         the service (default $PAYORCH_BASE_URL)
  --api-key <key>          API key (default $PAYORCH_PROVIDER_API_KEY)
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY')}
  --timeout <ms>           for each status read (${rangeOf(TIMEOUT)})
  --allow-insecure-http    allow a plain-http base URL that is not loopback (a trusted network only)
  --json                   one JSON array, an object per code
  -h, --help               show this text

Example:
  payorch reconcile CC-p4Lm8-1763812100 CC-q9Zr2-1763812200`;

/** What a receiver would do with one read, for a person and for a machine. */
function describe(trackingCode: string, read: StatusReadResult): { readonly line: string; readonly value: Record<string, unknown>; readonly failed: boolean } {
  switch (read.result) {
    case 'read': {
      const events = statusesToApply(read.read.readStatus).map((status) => `creditCard.${status}`);
      const wouldApply = events.join(', then ');
      return {
        line: `${trackingCode}  ${read.read.readStatus}  amount ${String(read.read.payload.amount)}: a receiver applies ${wouldApply} (unless applied before)`,
        value: { trackingCode, result: 'end', status: read.read.readStatus, amount: read.read.payload.amount, wouldApply: events },
        failed: false,
      };
    }
    case 'pending':
      return { line: `${trackingCode}  ${read.status}: not ended; a receiver leaves it alone`, value: { trackingCode, result: 'pending', status: read.status, wouldApply: [] }, failed: false };
    case 'not_found':
      return { line: `${trackingCode}  not found: the service knows no such card payment`, value: { trackingCode, result: 'not_found', wouldApply: [] }, failed: false };
    case 'failed': {
      const error = read.error;
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return {
        line: `${trackingCode}  not read: ${message}`,
        value: { trackingCode, result: 'failed', error: { class: error instanceof Error ? error.name : typeof error, message: error instanceof Error ? error.message : String(error), outcome: error instanceof PayorchError ? error.outcome : undefined } },
        failed: true,
      };
    }
    default:
      return assertNever(read);
  }
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...COMMON_OPTIONS, ...CREDENTIAL_OPTIONS, 'base-url': { type: 'string' }, timeout: { type: 'string' }, 'allow-insecure-http': { type: 'boolean', default: false } },
    true,
  );
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (positionals.length === 0) throw new UsageError('name at least one card payment tracking code, for example payorch reconcile CC-p4Lm8-1763812100');
  let codes: readonly string[];
  try {
    codes = checkTrackingCodes(positionals);
  } catch (error) {
    if (error instanceof RequestValidationError) throw new UsageError(error.issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ').replaceAll('trackingCodes', 'code '));
    throw error;
  }
  const baseUrl = requireSetting(values['base-url'], io, '--base-url', ENVIRONMENT_NAMES.baseUrl);
  const keys = await accountKeys(values, io, 'provider');
  const timeout = numberFlag(values.timeout, '--timeout', TIMEOUT);
  let provider: ProviderClient;
  try {
    provider = new ProviderClient({ baseUrl, ...keys, ...(timeout === undefined ? {} : { timeout }), allowInsecureHttp: values['allow-insecure-http'] });
  } catch (error) {
    if (error instanceof PayorchError) throw new UsageError(inFlags(error.message));
    throw error;
  }
  const reads = await eachAtMost(codes, 4, (code) => readCardStatus(provider, code, Date.now));
  const described = codes.map((code, index) => describe(code, reads[index] ?? { result: 'failed', error: new Error('not read') }));
  if (values.json) {
    io.stdout.write(`${JSON.stringify(described.map((each) => each.value), null, 2)}\n`);
  } else {
    const c = colours(io.stdout, io.env);
    // The service's text (a status payorch does not know, an error's body) is escaped: one line per code.
    for (const each of described) io.stdout.write(`${each.failed ? c.red(printable(each.line)) : printable(each.line)}\n`);
  }
  return described.some((each) => each.failed) ? EXIT_FAILED : EXIT_OK;
}

export const reconcileCommand: Command = { usage: USAGE, run };
