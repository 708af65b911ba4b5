import { DEFAULT_PGBOSS_QUEUE } from 'payorch/pg-boss';
import type { DeadLetter } from 'payorch/bullmq';
import { RequestValidationError } from 'payorch/webhooks';
import type { ResealKeys } from 'payorch/webhooks';
import { DEAD_LETTER_PAGE_LIMIT } from '../cli-internals.js';
import { ENGINES, openQueue, safeAddress } from './dead-letter-queues.js';
import type { Engine, OpenQueue, QueueSettings } from './dead-letter-queues.js';
import { numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, EXIT_FAILED, EXIT_OK, KEY_VARIABLES, OperationError, UsageError, emit, parse, printable, requireSetting, secretFromOptions, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';
import { didYouMean } from './suggest.js';

const USAGE = `Usage: payorch dead-letters list|show|replay|purge [arguments] [options]

The dead letters of a payorch/pg-boss or payorch/bullmq queue: callback jobs whose retries ran
out, kept until a person replays or purges them. It uses your project's own engine packages,
loaded from the current directory as your workers load them (pg, and pg-boss to replay; bullmq
and ioredis). A job's text is printed with its control characters escaped, and its hashes left out.

  list                      a page of dead letters, oldest first: id, kind, tracking code,
                            status, merchant id, attempts, when it died, its last error, and
                            each earlier life (it died, then was replayed)
  show <id>                 one dead letter and its job
  replay <id>... | --all    send dead letters to the queue again, each once, then delete them;
                            --all replays every one there is, a batch (100) at a time
  purge <id>... | --before <time>  --yes
                            delete dead letters for good

The engine: --engine, else the URL flag given (${ENGINES.map((each) => `${each.url.flag} ${each.label}`).join(', ')}), else
the variable set (${ENGINES.map((each) => `$${each.url.variable} ${each.label}`).join(', ')}); when both are set, --engine decides.

Options:
  --engine <name>          ${ENGINES.map((each) => each.name).join(' or ')}
  --queue <name>           the queue (default ${DEFAULT_PGBOSS_QUEUE}, both adapters' default)
${ENGINES.flatMap(engineHelp).join('\n')}
  --limit <n>              list: dead letters per page (${rangeOf(DEAD_LETTER_PAGE_LIMIT)})
  --cursor <cursor>        list: the next page, as the page before printed it
  --all                    replay: every dead letter there is when it starts
  --reseal <account>       replay: re-seal each job with the account's secret key now (provider
                           or dealer), after checking it with the key before a rotation: for
                           jobs sealed with the previous key past until (seal_key_expired)
  --old-secret-key-file <path>  replay --reseal: the secret key before the rotation, from a file
  --old-secret-key-stdin   replay --reseal: ... from standard input
  --old-secret-key <key>   replay --reseal: ... itself: avoid it, as --secret-key; never printed
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY or $PAYORCH_DEALER_SECRET_KEY, by --reseal')}
  --before <time>          purge: every dead letter that died before this ISO 8601 time
                           (2026-11-01, or 2026-11-01T09:30:00Z with its offset)
  --yes                    purge: yes, delete them for good
  --json                   one JSON value: { deadLetters, cursor }, the dead letter with its
                           job, { replayed, remaining | missing }, { purged, missing }
  -h, --help               show this text

Exit status: 0 done; 1 a dead letter named is not there, or the engine failed; 2 bad usage,
or a package your project lacks (with the npm install to run).

Examples:
  payorch dead-letters list --database-url "$DATABASE_URL"
  payorch dead-letters show 0b7c1f2e-5d3a-4c55-9a0e-1f2d3c4b5a69
  payorch dead-letters replay --all --redis-url redis://127.0.0.1:6379
  payorch dead-letters replay --all --reseal provider --old-secret-key-file ./old-secret-key
  payorch dead-letters purge --before 2026-10-01 --yes`;

/** An engine's lines of the usage: its URL flag and its own flags. */
function engineHelp(engine: Engine): string[] {
  const line = (flag: string, help: string): string => `  ${flag.padEnd(23)}  ${engine.label}: ${help}`;
  return [line(`${engine.url.flag} <url>`, `${engine.url.help} (default $${engine.url.variable})`), ...Object.entries(engine.flags).map(([name, flag]) => line(`--${name} ${flag.value}`, flag.help))];
}

const ACTIONS = ['list', 'show', 'replay', 'purge'] as const;
type Action = (typeof ACTIONS)[number];
/** The parsed flags, whichever action's. */
type Values = Readonly<Record<string, string | boolean | undefined>>;

const QUEUE_OPTIONS = {
  ...COMMON_OPTIONS,
  engine: { type: 'string' },
  queue: { type: 'string' },
  ...Object.fromEntries(ENGINES.flatMap((engine) => [engine.url.flag.slice(2), ...Object.keys(engine.flags)]).map((name) => [name, { type: 'string' } as const])),
} as const;

// Each action takes its own options besides: `list --all` is refused as an unknown option.
const ACTION_OPTIONS = {
  list: { limit: { type: 'string' }, cursor: { type: 'string' } },
  show: {},
  replay: {
    all: { type: 'boolean', default: false },
    reseal: { type: 'string' },
    'old-secret-key': { type: 'string' },
    'old-secret-key-file': { type: 'string' },
    'old-secret-key-stdin': { type: 'boolean', default: false },
    'secret-key': { type: 'string' },
    'secret-key-file': { type: 'string' },
    'secret-key-stdin': { type: 'boolean', default: false },
  },
  purge: { before: { type: 'string' }, yes: { type: 'boolean', default: false } },
} as const;

/** The flag a refusal of the library's names, by the option it names. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = { table: '--table', schema: '--table', limit: '--limit', cursor: '--cursor', before: '--before', ids: 'a dead letter id' };

/** The library's refusal of a value the command line gave, in the command line's words. */
function usageOf(error: RequestValidationError): UsageError {
  return new UsageError(error.issues.map((issue) => `${FLAG_OF_FIELD[issue.field.replace(/\[\d+\]$/, '')] ?? issue.field} ${issue.message}`).join('; '));
}

/** The engine and its queue, from the flags, else the environment (the rule the usage states). */
function settingsOf(values: Values, io: Io): QueueSettings {
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const names = ENGINES.map((each) => each.name);
  const given = text('engine');
  if (given !== undefined && !names.includes(given)) throw new UsageError(`--engine must be ${names.join(' or ')}, not ${JSON.stringify(given)}${didYouMean(given, names)}`);
  // The engines whose URL flag was given, then whose variable is set: one of them is the engine.
  const byFlag = ENGINES.filter((each) => text(each.url.flag.slice(2)) !== undefined);
  const byVariable = ENGINES.filter((each) => (io.env[each.url.variable] ?? '') !== '');
  const urls = new Set(byFlag.map((each) => each.url.flag));
  if (urls.size > 1) {
    const of = (url: string): string => byFlag.filter((each) => each.url.flag === url).map((each) => each.label).join(' or ');
    throw new UsageError(`${[...urls].map((url, index) => `${url}${index === 0 ? ' is' : ''} for ${of(url)}`).join(' and ')}: give the one of your queue`);
  }
  let engine = ENGINES.find((each) => each.name === given);
  if (engine === undefined) {
    const candidates = byFlag.length > 0 ? byFlag : byVariable;
    if (candidates.length > 1) {
      throw new UsageError(
        byFlag.length > 0
          ? `${[...urls].join()} is for ${candidates.map((each) => each.label).join(' and ')}: choose the engine with ${candidates.map((each) => `--engine ${each.name}`).join(' or ')}`
          : `both ${candidates.map((each) => `$${each.url.variable}`).join(' and ')} are set: choose the engine with ${candidates.map((each) => `--engine ${each.name}`).join(' or ')}`,
      );
    }
    engine = candidates[0];
    if (engine === undefined) {
      throw new UsageError(`which queue? give ${ENGINES.map((each) => `${each.url.flag} <url> (${each.label})`).join(' or ')}, or set ${[...new Set(ENGINES.map((each) => `$${each.url.variable}`))].join(' or ')}`);
    }
  }
  const own = engine;
  const others = [...new Set(ENGINES.filter((each) => each !== own).flatMap((each) => [each.url.flag.slice(2), ...Object.keys(each.flags)]))]
    .filter((name) => name !== own.url.flag.slice(2) && !(name in own.flags))
    .filter((name) => values[name] !== undefined);
  if (others.length > 0) throw new UsageError(`${others.map((name) => `--${name}`).join(' and ')} ${others.length > 1 ? 'are' : 'is'} not for ${own.label}, the engine here`);
  const { flag, variable } = own.url;
  const url = requireSetting(text(flag.slice(2)), io, flag, variable);
  // Not echoed: a URL holds the password.
  if (!URL.canParse(url)) throw new UsageError(`${flag} (or $${variable}) is not a URL, for example ${own.url.example}`);
  return { engine: own, url, queue: text('queue') ?? own.defaultQueue, flags: Object.fromEntries(Object.keys(own.flags).map((name) => [name, text(name)])) };
}

/** A time a person writes: an ISO 8601 date (UTC midnight), or a date and time with its offset. */
function timeOf(text: string): Date {
  const time = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(time.getTime())) throw new UsageError(`--before must be an ISO 8601 date (2026-11-01) or a date and time with its offset (2026-11-01T09:30:00Z); got ${JSON.stringify(text)}`);
  return time;
}

/** Each id once, in the order given. */
function idsOf(positionals: readonly string[], action: string): readonly string[] {
  for (const id of positionals) if (id === '') throw new UsageError(`${action} takes dead letter ids as list prints them; got an empty one`);
  return [...new Set(positionals)];
}

/** The keys of a re-seal, given on purpose: the account's secret key now, and the one before the rotation. */
async function resealKeys(values: Values, io: Io): Promise<ResealKeys | undefined> {
  const account = values['reseal'];
  const oldGiven = ['old-secret-key', 'old-secret-key-file'].some((name) => values[name] !== undefined) || values['old-secret-key-stdin'] === true;
  const nowGiven = ['secret-key', 'secret-key-file'].some((name) => values[name] !== undefined) || values['secret-key-stdin'] === true;
  if (account === undefined) {
    if (oldGiven || nowGiven) throw new UsageError('the secret key options are for --reseal <provider|dealer>: a replay without it sends each job as it is');
    return undefined;
  }
  if (account !== 'provider' && account !== 'dealer') throw new UsageError(`--reseal must be provider or dealer (the account whose secret key seals the jobs now), not ${JSON.stringify(account)}`);
  if (!oldGiven) throw new UsageError('--reseal needs the secret key before the rotation: --old-secret-key-file <path> or --old-secret-key-stdin');
  if (values['old-secret-key-stdin'] === true && values['secret-key-stdin'] === true) throw new UsageError('standard input holds one key: give the other with its -file option or the environment');
  const variable = KEY_VARIABLES[account].secretKey;
  const oldSecretKey = await secretFromOptions(values, io, 'old-secret-key', undefined);
  const secretKey = await secretFromOptions(values, io, 'secret-key', variable);
  if (oldSecretKey === undefined) throw new UsageError('--reseal needs the secret key before the rotation: --old-secret-key-file <path> or --old-secret-key-stdin');
  if (secretKey === undefined) throw new UsageError(`--reseal ${account} needs the account's secret key now: set ${variable}, or give --secret-key-file <path> or --secret-key-stdin`);
  return { oldSecretKey, secretKey };
}

/** A time as printed: ISO 8601 in UTC, or `unknown` for a job that holds none. */
const timeText = (time: Date): string => (Number.isNaN(time.getTime()) ? 'unknown' : time.toISOString());

/**
 * A dead letter as three lines of text, and one for each earlier life (it died, then was
 * replayed), every value from the queue escaped. Its attempts are those of all its lives.
 */
function deadLetterLines(letter: DeadLetter): string[] {
  return [
    `${printable(letter.id)}  ${printable(letter.kind)} ${printable(letter.trackingCode)} ${printable(letter.status)}`,
    `  merchant ${printable(letter.merchantId)}, received ${timeText(letter.receivedAt)}, died ${timeText(letter.deadAt)} after ${String(letter.attempts)} attempt(s)`,
    `  last error: ${printable(letter.lastError)}`,
    ...letter.history.map((life) => `  before a replay: died ${timeText(life.deadAt)} after ${String(life.attempts)} attempt(s): ${printable(life.lastError)}`),
  ];
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A job as the command prints it: without the service's hash (`signature.hash`, and the payload's
 * own `hash`) and the seal's MAC, which belong in no log; the rest as the queue holds it.
 */
function withoutHashes(job: unknown): unknown {
  if (!isRecord(job)) return job;
  const without = (value: unknown, name: string): unknown => (isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== name)) : value);
  const shown: Record<string, unknown> = { ...job };
  if ('payload' in job) shown['payload'] = without(job['payload'], 'hash');
  if ('signature' in job) shown['signature'] = without(job['signature'], 'hash');
  if ('seal' in job) shown['seal'] = without(job['seal'], 'mac');
  return shown;
}

/** `items` in runs of `size`. */
function batches<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let start = 0; start < items.length; start += size) runs.push(items.slice(start, start + size));
  return runs;
}

/** What the command line asks for, checked before anything is loaded or opened. */
interface Plan {
  readonly ids: readonly string[];
  readonly limit: number | undefined;
  readonly cursor: string | undefined;
  readonly reseal: ResealKeys | undefined;
  readonly before: Date | undefined;
  readonly json: boolean;
}

async function planOf(action: Action, values: Values, positionals: readonly string[], io: Io): Promise<Plan> {
  const text = (name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
  const ids = idsOf(positionals, action);
  const plan = { ids, limit: undefined, cursor: undefined, reseal: undefined, before: undefined, json: values['json'] === true };
  switch (action) {
    case 'list':
      return { ...plan, limit: numberFlag(text('limit'), '--limit', DEAD_LETTER_PAGE_LIMIT), cursor: text('cursor') };
    case 'show':
      if (ids.length !== 1) throw new UsageError('show takes one dead letter id, as list prints it');
      return plan;
    case 'replay':
      if ((ids.length > 0) === (values['all'] === true)) throw new UsageError('name the dead letters to replay by id, or give --all for every one');
      return { ...plan, reseal: await resealKeys(values, io) };
    case 'purge': {
      const before = text('before');
      if (before !== undefined && ids.length > 0) throw new UsageError('purge takes ids or --before, not both');
      if (before === undefined && ids.length === 0) throw new UsageError('name the dead letters to purge by id, or give --before <time>');
      if (values['yes'] !== true) throw new UsageError('purge deletes dead letters for good, and with them the callbacks they would apply: add --yes once you are sure (list or show them first)');
      return { ...plan, before: before === undefined ? undefined : timeOf(before) };
    }
    default:
      return action satisfies never;
  }
}

/** Writes the ids named that were not dead letters, and says whether there were any. */
function reportMissing(missing: number, queue: OpenQueue, io: Io): number {
  if (missing === 0) return EXIT_OK;
  io.stderr.write(`payorch dead-letters: ${String(missing)} of the ids named ${missing === 1 ? 'is' : 'are'} not a dead letter of ${queue.name} (replayed or purged already?)\n`);
  return EXIT_FAILED;
}

async function list(queue: OpenQueue, plan: Plan, io: Io): Promise<number> {
  const { cursor } = plan;
  const page = await queue.deadLetters.list({ ...(plan.limit === undefined ? {} : { limit: plan.limit }), ...(cursor === undefined ? {} : { cursor }) });
  emit(
    io,
    plan.json,
    () => {
      if (page.deadLetters.length === 0) return `No dead letters${cursor === undefined ? '' : ' after this cursor'} in ${queue.name}.`;
      const lines = [`${String(page.deadLetters.length)} dead letter(s) of ${queue.name}, oldest first:`, ...page.deadLetters.flatMap(deadLetterLines)];
      if (page.cursor !== undefined) lines.push(`More: add --cursor ${printable(page.cursor)}`);
      return lines.join('\n');
    },
    () => page,
  );
  return EXIT_OK;
}

async function show(queue: OpenQueue, plan: Plan, io: Io): Promise<number> {
  const id = plan.ids[0] ?? '';
  const found = await queue.deadLetters.get(id);
  if (found === undefined) throw new OperationError(`no dead letter ${printable(id)} in ${queue.name}: replayed or purged already, or another queue's (list shows the ids)`);
  const job = withoutHashes(found.job);
  emit(
    io,
    plan.json,
    () =>
      [
        ...deadLetterLines(found),
        'job (its hashes and seal MAC left out):',
        // Each line of JSON's own layout escaped: JSON.stringify leaves C1 controls, U+2028 and bidi overrides as they are.
        ...JSON.stringify(job, null, 2).split('\n').map((line) => `  ${printable(line)}`),
      ].join('\n'),
    () => ({ ...found, job }),
  );
  return EXIT_OK;
}

async function replay(queue: OpenQueue, plan: Plan, io: Io): Promise<number> {
  const options = plan.reseal === undefined ? {} : { reseal: plan.reseal };
  let replayed = 0;
  try {
    if (plan.ids.length > 0) {
      for (const run of batches(plan.ids, queue.batch)) replayed += (await queue.deadLetters.replay({ ids: run, ...options })).replayed;
      const missing = plan.ids.length - replayed;
      emit(io, plan.json, () => `Replayed ${String(replayed)} of the ${String(plan.ids.length)} dead letter(s) named, of ${queue.name}.`, () => ({ replayed, missing }));
      return reportMissing(missing, queue, io);
    }
    // Every dead letter there was at the start, and no more: one that dies again while this runs
    // (its handler still fails) is not sent round again by the same command.
    let remaining = 0;
    let total: number | undefined;
    for (;;) {
      const batch = await queue.deadLetters.replay(options);
      replayed += batch.replayed;
      remaining = batch.remaining;
      total ??= batch.replayed + batch.remaining;
      // Nothing moved: another replay holds the rest, or none is left.
      if (batch.replayed === 0 || remaining === 0 || replayed >= total) break;
    }
    emit(
      io,
      plan.json,
      () => `Replayed ${String(replayed)} dead letter(s) of ${queue.name}; ${String(remaining)} remain${remaining === 0 ? '' : ' (dead again since, or held by another replay: run it again to send them)'}.`,
      () => ({ replayed, remaining }),
    );
    return EXIT_OK;
  } catch (error) {
    // What went before the failure was sent: say so, or a second run looks like a duplicate.
    if (replayed > 0 && error instanceof Error && !(error instanceof RequestValidationError)) throw new OperationError(`replayed ${String(replayed)} dead letter(s), then stopped: ${error.message}`);
    throw error;
  }
}

async function purge(queue: OpenQueue, plan: Plan, io: Io): Promise<number> {
  const { before } = plan;
  if (before !== undefined) {
    const { purged } = await queue.deadLetters.purge({ before });
    emit(io, plan.json, () => `Purged ${String(purged)} dead letter(s) of ${queue.name} that died before ${before.toISOString()}.`, () => ({ purged }));
    return EXIT_OK;
  }
  let purged = 0;
  for (const run of batches(plan.ids, queue.batch)) purged += (await queue.deadLetters.purge({ ids: run })).purged;
  const missing = plan.ids.length - purged;
  emit(io, plan.json, () => `Purged ${String(purged)} of the ${String(plan.ids.length)} dead letter(s) named, of ${queue.name}.`, () => ({ purged, missing }));
  return reportMissing(missing, queue, io);
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const [first, ...rest] = args;
  if (first === '--help' || first === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (first === undefined) throw new UsageError('name what to do: list, show <id>, replay <id>... or replay --all, purge <id>... or purge --before <time>');
  if (!(ACTIONS as readonly string[]).includes(first)) throw new UsageError(`unknown action ${JSON.stringify(first)}${didYouMean(first, ACTIONS)}: list, show, replay or purge`);
  const action = first as Action;
  const { values, positionals } = parse(rest, { ...QUEUE_OPTIONS, ...ACTION_OPTIONS[action] }, action !== 'list');
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  const given = values as Values;
  // Every check of the command line before the engine's packages are loaded or anything is opened.
  const plan = await planOf(action, given, positionals, io);
  const settings = settingsOf(given, io);

  let queue: OpenQueue | undefined;
  try {
    queue = await openQueue(settings, io, { replay: action === 'replay' });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof RequestValidationError) throw usageOf(error);
    throw new OperationError(`could not open the dead letters of queue ${settings.queue} on ${safeAddress(settings.url)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    switch (action) {
      case 'list':
        return await list(queue, plan, io);
      case 'show':
        return await show(queue, plan, io);
      case 'replay':
        return await replay(queue, plan, io);
      case 'purge':
        return await purge(queue, plan, io);
      default:
        return action satisfies never;
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof OperationError) throw error;
    if (error instanceof RequestValidationError) throw usageOf(error);
    // The engine's failure, or a job the old key did not seal (CallbackJobError, naming it).
    throw new OperationError(`${error instanceof Error ? error.message : String(error)} (${queue.name})`);
  } finally {
    await queue.close().catch(() => undefined);
  }
}

export const deadLettersCommand: Command = { usage: USAGE, run };
