import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { clientOptions } from '../../src/core/client-options.js';
import { REQUEST_OPTIONS, allowedBy } from '../../src/core/option-checks.js';
import type { OptionDeclaration } from '../../src/core/option-checks.js';
import { declared, rangeOf } from '../../src/tools/cli/flags.js';
import { BULLMQ_LIST_OPTIONS } from '../../src/queues/bullmq/dead-letters.js';
import { DEAD_LETTER_PAGE_LIMIT } from '../../src/queues/dead-letters.js';
import { BULLMQ_QUEUE_OPTIONS, BULLMQ_WORK_OPTIONS } from '../../src/queues/bullmq/queue.js';
import { CLOUDFLARE_LIST_OPTIONS } from '../../src/queues/cloudflare-queues/dead-letters.js';
import { CLOUDFLARE_QUEUE_OPTIONS, D1_DEAD_LETTERS_TABLE_OPTIONS } from '../../src/queues/cloudflare-queues/options.js';
import { PGBOSS_QUEUE_OPTIONS, PGBOSS_WORK_OPTIONS } from '../../src/queues/pg-boss/options.js';
import { DEAD_LETTER_TABLE_OPTION } from '../../src/queues/pg-boss/table.js';
import { DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS, DEFAULT_POSTGRES_INBOX_TABLE, DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS } from '../../src/inboxes/postgres/index.js';
import { ROTATE_KEYS_OPTIONS } from '../../src/tools/sandbox/keys.js';
import { SANDBOX_DEFAULTS, SANDBOX_OPTIONS } from '../../src/tools/sandbox/options.js';
import { OLDER_THAN_OPTION, SQLITE_TABLE_OPTION } from '../../src/inboxes/sqlite.js';
import { CONFIRM_CARD_OPTIONS } from '../../src/webhooks/confirm-card.js';
import { MEMORY_INBOX_OPTIONS } from '../../src/inboxes/memory.js';
import { RECEIVER_OPTIONS } from '../../src/webhooks/receiver/receiver.js';
import { VERIFY_OPTIONS } from '../../src/webhooks/verify.js';
import { payorch } from '../cli/run.js';

/*
 * Each option's default is written once, in its declaration, and read from there at run time.
 * What people read repeats it: the JSDoc `@default` of its interface, the CLI help and the docs'
 * tables. These tests hold each of those to the declaration, so that none drifts. That each
 * declaration names an option of its interface, and that none is left out, the compiler holds
 * (`declareOptions` in src/core/option-checks.ts).
 */

const root = join(import.meta.dirname, '../..');

/** An option's default as declared, by its (dotted) name. */
type Defaults = ReadonlyMap<string, unknown>;
const defaultsOf = (declarations: readonly OptionDeclaration[], extra: Readonly<Record<string, unknown>> = {}): Defaults =>
  new Map([...declarations.filter((each) => each.default !== undefined).map((each) => [each.name, each.default] as const), ...Object.entries(extra)]);

// Every options interface whose defaults payorch declares, with the declarations that check it.
// A dotted prefix places a nested interface (CallbackRetryOptions is SandboxOptions.callbackRetry).
const interfaces: [file: string, name: string, prefix: string, defaults: Defaults][] = [
  ['src/core/client-options.ts', 'ClientOptions', '', defaultsOf(clientOptions('PROVIDER'))],
  ['src/webhooks/verify.ts', 'VerifyCallbackOptions', '', defaultsOf(VERIFY_OPTIONS)],
  ['src/webhooks/receiver/receiver.ts', 'CallbackReceiverOptions', '', defaultsOf(RECEIVER_OPTIONS)],
  ['src/inboxes/memory.ts', 'MemoryInboxOptions', '', defaultsOf(MEMORY_INBOX_OPTIONS)],
  ['src/webhooks/confirm-card.ts', 'ConfirmWithCardStatusOptions', '', defaultsOf(CONFIRM_CARD_OPTIONS)],
  // Any text or number is a seed: it has a default but no range to declare.
  ['src/tools/sandbox/options.ts', 'SandboxOptions', '', defaultsOf(SANDBOX_OPTIONS, { seed: SANDBOX_DEFAULTS.seed })],
  ['src/tools/sandbox/options.ts', 'CallbackRetryOptions', 'callbackRetry.', defaultsOf(SANDBOX_OPTIONS)],
  ['src/tools/sandbox/options.ts', 'SandboxProviderOptions', 'provider.', defaultsOf(SANDBOX_OPTIONS)],
  ['src/tools/sandbox/options.ts', 'SandboxDealerOptions', 'dealer.', defaultsOf(SANDBOX_OPTIONS)],
  ['src/tools/sandbox/keys.ts', 'RotateKeysOptions', '', defaultsOf(ROTATE_KEYS_OPTIONS)],
  ['src/inboxes/d1/index.ts', 'D1InboxOptions', '', defaultsOf([SQLITE_TABLE_OPTION])],
  ['src/inboxes/d1/index.ts', 'PruneD1InboxOptions', '', defaultsOf([SQLITE_TABLE_OPTION, OLDER_THAN_OPTION])],
  ['src/inboxes/durable-object/index.ts', 'DurableObjectInboxOptions', '', defaultsOf([SQLITE_TABLE_OPTION])],
  ['src/inboxes/durable-object/index.ts', 'PruneDurableObjectInboxOptions', '', defaultsOf([SQLITE_TABLE_OPTION, OLDER_THAN_OPTION])],
  ['src/queues/bullmq/queue.ts', 'BullMQQueueOptions', '', defaultsOf(BULLMQ_QUEUE_OPTIONS)],
  ['src/queues/bullmq/queue.ts', 'BullMQWorkOptions', '', defaultsOf(BULLMQ_WORK_OPTIONS)],
  ['src/queues/dead-letters.ts', 'ListDeadLettersOptions', '', defaultsOf(BULLMQ_LIST_OPTIONS)],
  ['src/queues/dead-letters.ts', 'ListDeadLettersOptions', '', defaultsOf(CLOUDFLARE_LIST_OPTIONS)],
  ['src/queues/cloudflare-queues/options.ts', 'CloudflareQueueOptions', '', defaultsOf(CLOUDFLARE_QUEUE_OPTIONS)],
  ['src/queues/cloudflare-queues/options.ts', 'D1DeadLettersTableOptions', '', defaultsOf(D1_DEAD_LETTERS_TABLE_OPTIONS)],
  // payorch/postgres keeps its declarations private; they take their defaults from these exports.
  ['src/inboxes/postgres/table.ts', 'PostgresInboxOptions', '', new Map<string, unknown>([['table', DEFAULT_POSTGRES_INBOX_TABLE], ['lockTimeoutMs', DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS]])],
  ['src/queues/pg-boss/options.ts', 'PgBossQueueOptions', '', defaultsOf(PGBOSS_QUEUE_OPTIONS)],
  ['src/queues/pg-boss/options.ts', 'PgBossWorkOptions', '', defaultsOf(PGBOSS_WORK_OPTIONS)],
  ['src/queues/pg-boss/table.ts', 'PgBossDeadLetterTableOptions', '', defaultsOf([DEAD_LETTER_TABLE_OPTION])],
  ['src/inboxes/postgres/prune.ts', 'PrunePostgresInboxOptions', '', new Map<string, unknown>([['table', DEFAULT_POSTGRES_INBOX_TABLE], ['olderThanSeconds', DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS]])],
];

/** A `@default` that states a value (a number, a quoted string, a boolean, or an object of them); undefined for prose. */
function literalOf(text: string): unknown {
  const number = /^-?\d[\d_]*(?:\.\d+)?(?![\w.])/.exec(text)?.[0];
  if (number !== undefined) return Number(number.replaceAll('_', ''));
  const quoted = /^'([^']*)'/.exec(text)?.[1];
  if (quoted !== undefined) return quoted;
  const boolean = /^(true|false)\b/.exec(text)?.[1];
  if (boolean !== undefined) return boolean === 'true';
  const object = /^\{ (.+) \}$/.exec(text)?.[1];
  if (object !== undefined) return Object.fromEntries(object.split(', ').map((pair) => [pair.split(': ')[0], literalOf(pair.split(': ')[1] ?? '')]));
  return undefined;
}

/** The `@default` text of each member of an interface, by its name. */
function jsDocDefaults(file: string, name: string): Map<string, string> {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found = source.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name);
  if (found === undefined) throw new Error(`${file} declares no interface ${name}`);
  const defaults = new Map<string, string>();
  for (const member of found.members) {
    if (member.name === undefined || !ts.isIdentifier(member.name)) continue;
    const tag = ts.getJSDocTags(member).find((each) => each.tagName.text === 'default');
    if (tag !== undefined) defaults.set(member.name.text, (ts.getTextOfJSDocComment(tag.comment) ?? '').trim());
  }
  return defaults;
}

const rows = interfaces.flatMap(([file, name, prefix, defaults]) =>
  [...jsDocDefaults(file, name)].flatMap(([member, text]) => {
    const value = literalOf(text);
    // An object default names the defaults of its nested options, one row each.
    const entries: [string, unknown][] = typeof value === 'object' && value !== null ? Object.entries(value).map(([key, inner]) => [`${member}.${key}`, inner]) : [[member, value]];
    return entries.map(([option, stated]) => ({ file, name, option: `${prefix}${option}`, text, stated, declared: defaults.get(`${prefix}${option}`) }));
  }),
);

describe("an interface's JSDoc @default states the defaults its declarations hold", () => {
  test.each(interfaces.map(([file, name, prefix, defaults]) => [name, file, prefix, defaults] as const))('%s', (name, file, prefix, defaults) => {
    const members = jsDocDefaults(file, name);
    const here = rows.filter((row) => row.name === name);
    // Prose ("Date.now", "none") names no value: then the option must declare none either.
    expect(Object.fromEntries(here.map((row) => [row.option, row.stated]))).toEqual(Object.fromEntries(here.map((row) => [row.option, row.declared])));
    // A nested option is this interface's to state when its member's @default is an object of them;
    // otherwise the nested interface states it (SandboxProviderOptions for `provider.name`).
    const ownedHere = (path: string): boolean => {
      const [member = '', ...rest] = path.split('.');
      return members.has(member) && (rest.length === 0 || (members.get(member) ?? '').startsWith('{'));
    };
    const stated = new Set(here.filter((row) => row.stated !== undefined).map((row) => row.option));
    const own = [...defaults.keys()].filter((option) => option.startsWith(prefix) && ownedHere(option.slice(prefix.length)));
    expect(own.filter((option) => !stated.has(option))).toEqual([]);
    expect(own.length).toBeGreaterThan(0);
  });
});

/** The file under src/ that declares the interface `name`, wherever a refactor moved it. */
function fileDeclaring(name: string): string {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const file = files.find((each) => readFileSync(join(root, 'src', each), 'utf8').includes(`export interface ${name} `));
  if (file === undefined) throw new Error(`No file under src/ declares ${name}`);
  return join('src', file);
}

test("each of RequestOptions' @default names the client's option and its declared default", () => {
  const stated = jsDocDefaults(fileDeclaring('RequestOptions'), 'RequestOptions');
  expect(Object.fromEntries(REQUEST_OPTIONS.map(({ name }) => [name, stated.get(name)]))).toEqual(
    Object.fromEntries(REQUEST_OPTIONS.map(({ name, default: value }) => [name, `the client's \`${name}\` (${String(value)})`])),
  );
});

/** The rows of the markdown table under `heading` in a docs file: first cell to last cell. */
function tableRows(file: string, heading: string): [string, string][] {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`${file} has no section ${heading}`);
  const section = text.slice(start + heading.length + 5).split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Option') && !line.startsWith('|---'))
    .map((line) => {
      const cells = line.slice(2, -2).split(' | ');
      return [cells[0] ?? '', cells.at(-1) ?? ''];
    });
}

describe("docs/errors-and-retries.md's table of options states each declared range", () => {
  const declarations = clientOptions('PROVIDER');
  const table = tableRows('docs/errors-and-retries.md', 'Options are checked where they are given');
  const numeric = declarations.filter((declaration) => declaration.rule.type === 'number' || declaration.rule.type === 'boolean');

  test('the row of each number or boolean option says what its rule allows', () => {
    const rows = Object.fromEntries(numeric.map(({ name }) => [name, table.find(([option]) => option.startsWith(`\`${name}\``))?.[1] ?? '(no row)']));
    for (const declaration of numeric) expect(rows[declaration.name], declaration.name).toContain(allowedBy(declaration.rule));
  });
});

describe('a CLI flag that is a setting shows the range and default of its declaration, in its help and in docs/cli.md', () => {
  const flags: [command: string, flag: string, shown: string, inDocsTable: boolean][] = [
    ['sandbox', '--port', '0 to 65535, default 4010', true],
    ['sandbox', '--callback-retries', rangeOf(declared(SANDBOX_OPTIONS, 'callbackRetry.attempts')), true],
    ['sandbox', '--callback-timeout', rangeOf(declared(SANDBOX_OPTIONS, 'callbackRetry.timeoutMs')), true],
    ['call', '--timeout', rangeOf(declared(REQUEST_OPTIONS, 'timeout')), false],
    ['verify', '--tolerance', rangeOf(declared(VERIFY_OPTIONS, 'toleranceSeconds')), false],
    ['verify', '--max-age', rangeOf(declared(VERIFY_OPTIONS, 'maxAgeSeconds')), false],
    ['doctor', '--timeout', '1 to 600000, default 10000', false],
    ['trigger', '--timeout', '1 to 600000, default 10000', false],
    ['dead-letters', '--limit', rangeOf(DEAD_LETTER_PAGE_LIMIT), false],
  ];
  const sandboxTable = tableRows('docs/cli.md', '`payorch sandbox`');

  test.each(flags)('payorch %s --help shows %s as (%s)', async (command, flag, shown, inDocsTable) => {
    const help = await payorch([command, '--help']);
    const line = help.stdout.split('\n').find((each) => each.trimStart().startsWith(`${flag} `));
    expect(line).toContain(`(${shown}`);
    if (inDocsTable) expect(sandboxTable.find(([option]) => option.startsWith(`\`${flag} `))?.[1]).toContain(`(${shown})`);
  });

  test.each([
    ['sandbox', ['--callback-retries', '21'], '--callback-retries must be an integer from 1 to 20; got 21'],
    ['sandbox', ['--port', '65536'], '--port must be an integer from 0 to 65535; got 65536'],
    ['call', ['provider.welcome', '--timeout', 'soon'], '--timeout must be a finite number of milliseconds from 1 to 2147483647; got "soon"'],
    ['verify', ['--body', '-', '--tolerance=-1'], '--tolerance must be a finite number of seconds, 0 or more; got -1'],
    ['doctor', ['--timeout', '600001'], '--timeout must be an integer from 1 to 600000; got 600001'],
    ['trigger', ['deposit.completed', '--forward-to', 'http://127.0.0.1:1/', '--timeout', '0'], '--timeout must be an integer from 1 to 600000; got 0'],
    ['dead-letters', ['list', '--redis-url', 'redis://127.0.0.1:1', '--limit', '1001'], '--limit must be an integer from 1 to 1000; got 1001'],
  ])('payorch %s %j is bad usage naming the flag, its range and what was typed', async (command, args, message) => {
    const run = await payorch([command, ...args], { PAYORCH_PROVIDER_API_KEY: 'k', PAYORCH_PROVIDER_SECRET_KEY: 's', PAYORCH_DEALER_API_KEY: 'k', PAYORCH_DEALER_SECRET_KEY: 's', PAYORCH_BASE_URL: 'http://127.0.0.1:1' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
