import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { API_ENDPOINTS, operationId } from '../../src/tools/registry/index.js';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { APIResource } from '../../src/internal/resource.js';
import { requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';
import { describe, expect, test } from 'vitest';

/*
 * The names `payorch` exports, each group with the reason a user gives for importing it. A name
 * enters the main entry only with such a reason; anything else (building blocks of a schema,
 * defaults, internal constants) stays in its module. `values` exist at run time; `types` are
 * types only. `schemas` are types on the main entry too: the type of each request, answer and
 * callback body. Their zod schemas, under the same names, are `payorch/schemas`' values: a user
 * who writes code against a body imports its type from here, one who parses imports the schema.
 */
interface Group {
  readonly reason: string;
  readonly values?: readonly string[];
  readonly types?: readonly string[];
  readonly schemas?: readonly string[];
}

/**
 * The name each endpoint's request and answer schema has in payorch/schemas, read from the
 * registry (src/tools/registry/index.ts): an endpoint added there is in the lists below without a line
 * here. A call that takes no parameters has no request schema to name.
 */
const schemaModule = (await import('../../src/schemas/index.js')) as Record<string, unknown>;
const nameOf = (schema: unknown): string | undefined => Object.keys(schemaModule).find((name) => schemaModule[name] === schema);
const ENDPOINT_SCHEMAS_MISSING = API_ENDPOINTS.flatMap((row) => [
  ...(row.endpoint.params.safeParse(undefined).success || nameOf(row.endpoint.params) !== undefined ? [] : [`${operationId(row)} params`]),
  ...(nameOf(row.endpoint.response) !== undefined ? [] : [`${operationId(row)} response`]),
]);
const ENDPOINT_SCHEMAS = [...new Set(API_ENDPOINTS.flatMap((row) => [nameOf(row.endpoint.params), nameOf(row.endpoint.response)]).filter((name) => name !== undefined))];

/** The class of each part of a client, read from one: a resource added to DealerResources or ProviderResources is here without a line. */
const partsOf = (client: object): string[] => Object.values(client).filter((part) => part instanceof APIResource).map((part: APIResource) => part.constructor.name);
const keys = { baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's' };
const DEALER_PARTS = partsOf(new DealerClient(keys));
const PROVIDER_PARTS = partsOf(new ProviderClient(keys));

const DECLARED: readonly Group[] = [
  { reason: 'I call the Provider API and the Dealer API', values: ['ProviderClient', 'DealerClient'] },
  {
    reason: 'I configure a client, once or per call',
    types: ['ClientOptions', 'ProviderClientOptions', 'ClientSettings', 'RequestOptions', 'ProviderRequestOptions', 'LogLevel'],
  },
  { reason: 'I call an endpoint the SDK does not wrap yet, signed like the others', types: ['RawRequest', 'ProviderRawRequest'] },
  { reason: 'I read the HTTP response beside the parsed answer', values: ['APIPromise'], types: ['WithResponse'] },
  {
    reason: 'I pass one part of a client to my own code, and read its methods in the reference',
    types: [...PROVIDER_PARTS, 'BankChannel', 'CryptoChannel', 'WalletChannel', 'ThirdPartyGateways'],
  },
  { reason: 'I read the clients\' declarations, which extend these', types: ['APIResource', 'DealerResources', 'ProviderResources'] },
  { reason: 'I pass one part of the dealer client to my own code', types: DEALER_PARTS },
  {
    reason: 'I type the requests I build and the answers I keep of every endpoint (payorch/schemas parses them)',
    schemas: ENDPOINT_SCHEMAS,
  },
  {
    reason: 'I type the parts of a request or answer, and the requests of calls built over an endpoint',
    schemas: ['SiteListParams', 'Site', 'Gateway', 'TransactionRangeParams', 'ReadNewTransactionsParams', 'EibanAccount', 'Transaction', 'Transfer'],
  },
  { reason: 'I branch on the status of a record', schemas: ['DepositStatus', 'WithdrawalStatus', 'CardPaymentStatus', 'TransferStatus'], types: ['TransferEndStatus'] },
  { reason: 'I page through transactions, or read only the new ones', types: ['TransactionIterable', 'NewTransactions'] },
  { reason: 'I wait for a transfer to end', types: ['WaitForTransferOptions'] },
  { reason: 'I sweep my pending transfers and apply their end statuses once', values: ['applyTransferStatuses'], types: ['ApplyTransferStatusesOptions', 'EndedTransfer', 'TransferStatusOutcome'] },
  {
    reason: 'I catch what a call throws and tell whether money may have moved',
    values: [
      'PayorchError', 'isPayorchError', 'APIError', 'BadRequestError', 'AuthenticationError', 'PermissionDeniedError', 'NotFoundError', 'ConflictError', 'UnprocessableEntityError',
      'RateLimitError', 'InternalServerError', 'ResponseValidationError', 'RequestValidationError', 'TimeoutError', 'TransferWaitTimeoutError',
      'RequestAbortedError', 'ConnectionError',
    ],
    types: ['CallOutcome', 'FailedCall', 'ValidationIssue', 'AuthFailureReason', 'DealerErrorCode', 'ConnectionFailureReason'],
  },
  { reason: 'I read a tracking code: which record it names and which way the money moves', values: ['parseTrackingCode', 'safeParseTrackingCode', 'TrackingCodeError'], types: ['ParsedTrackingCode', 'TrackingCodePrefix', 'TrackingCodeDirection', 'RecordKind'] },
  { reason: 'I log, hook and trace calls with my own logger and tracer', types: ['Logger', 'LogFunction', 'RequestEvent', 'ResponseEvent', 'TracerLike', 'SpanLike', 'SpanLinkContext'] },
  { reason: 'I count and time the callbacks my receiver takes with my own meter', types: ['MeterLike'] },
  {
    reason: 'I verify a callback the service POSTs to me, in any framework',
    values: ['verifyCallback', 'verifyCallbackRequest', 'CallbackVerificationError', 'DEFAULT_CALLBACK_MAX_AGE_SECONDS'],
    types: ['VerifyCallbackOptions', 'CallbackInput', 'CallbackHeaders', 'CallbackBody', 'PreviousSecretKey', 'VerifiedCallback', 'CallbackVerificationReason'],
  },
  { reason: 'I sign a test callback for my own receiver', values: ['signCallback'], types: ['SignCallbackPayload', 'SignCallbackOptions', 'SignedCallback'] },
  {
    reason: 'I type a callback body I keep (payorch/schemas parses it again, from my queue or logs)',
    schemas: ['DepositCallback', 'WithdrawalCallback', 'CreditCardCallback', 'DealerCreditCardCallback', 'UnknownCallback'],
  },
  { reason: 'I write a handler for one kind and status of callback', types: ['Api', 'CallbackKind', 'CallbackStatus', 'CallbackEventName', 'CallbackOfEvent', 'CallbackHandler', 'CallbackConfirm', 'AppliedCallback'] },
  {
    reason: 'I receive callbacks and apply each once, now or from my queue',
    values: ['createCallbackReceiver', 'CallbackJobError'],
    types: [
      'CallbackReceiver', 'CallbackReceiverOptions', 'CallbackApplyOptions', 'CallbackReceiverAnswer', 'CallbackErrorDetails', 'ReportedCallback', 'NodeRequestLike',
      'NodeResponseLike', 'CallbackJob', 'SignedCallbackJob', 'StatusReadJob', 'CallbackJobField',
    ],
  },
  { reason: 'I re-seal a dead letter queued before a key rotation whose window closed', values: ['resealCallbackJob'], types: ['JobSeal', 'ResealKeys'] },
  { reason: 'I recover a callback that never came from the service\'s status', types: ['ReconcileOptions', 'ReconcileResult', 'ReconcileResultKind'] },
  {
    reason: 'I confirm a card callback against the service before moving money',
    values: ['confirmWithCardStatus'],
    types: ['ConfirmWithCardStatusOptions', 'CardStatusRead', 'CardStatusReadPayload', 'CardStatusSource', 'CardStatusAnswer', 'CardEndStatus'],
  },
  { reason: 'I give an external call of my handler an idempotency key per callback', values: ['callbackKeyString'] },
  { reason: 'I keep applied callbacks in memory, on one instance', values: ['createMemoryInbox', 'InboxFullError'], types: ['MemoryInboxOptions', 'MemoryInboxContext'] },
  {
    reason: 'I write my own inbox for my own database',
    values: ['CallbackRetentionError', 'InboxCommitError'],
    types: ['CallbackInbox', 'CallbackInboxContext', 'CallbackKey', 'CallbackInboxOutcome', 'CallbackProgress'],
  },
  { reason: 'I tell an inbox\'s failure (its table, its lock, a copy that failed) apart from my handler\'s', values: ['InboxError'] },
  { reason: 'I tell a queue adapter\'s failure (a job the engine did not take) apart from my handler\'s', values: ['QueueError'] },
  { reason: 'I tell a callback confirm or no handler refused (nothing applied) from one my code failed', values: ['NotConfirmedError', 'UnhandledError', 'CallbackHandlingError'] },
];

const root = join(import.meta.dirname, '..', '..');
const main = entry('payorch');
const webhooks = entry('payorch/webhooks');
const schemas = entry('payorch/schemas');
requireBuilt(main.types, main.ctypes, main.esm, main.cjs, webhooks.types, webhooks.esm, schemas.types, schemas.ctypes, schemas.esm, schemas.cjs);

const declaredValues = DECLARED.flatMap((group) => group.values ?? []);
const declaredSchemas = DECLARED.flatMap((group) => group.schemas ?? []);
const declared = [...declaredValues, ...DECLARED.flatMap((group) => group.types ?? []), ...declaredSchemas];
const sorted = (names: Iterable<string>): string[] => [...names].sort();

/**
 * Every name the declarations of an entry export, types and values alike, as TypeScript sees them,
 * and those a user may import as a value (exported without `type`, declared with a value).
 */
// One program reads all the declarations the tests below ask about: the compiler's lib and the
// chunks the entries share are read once, not once an entry.
let program: ts.Program | undefined;
function exportsOf(declarations: string): { names: string[]; values: string[] } {
  program ??= ts.createProgram(
    [main.types, main.ctypes, webhooks.types, schemas.types, schemas.ctypes].map((file) => join(root, file)),
    // No DOM and no @types/node: an export's name and kind need no global type, and those libraries
    // were most of what the compiler read.
    { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], lib: ['lib.es2023.d.ts'] },
  );
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(declarations);
  const module = file && checker.getSymbolAtLocation(file);
  if (!module) throw new Error(`${declarations} declares no module`);
  const symbols = checker.getExportsOfModule(module);
  const typeOnly = (symbol: ts.Symbol): boolean =>
    symbol.declarations?.some((declaration) => ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly)) ?? false;
  const value = (symbol: ts.Symbol): boolean => {
    if (typeOnly(symbol)) return false;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return (target.flags & ts.SymbolFlags.Value) !== 0;
  };
  return { names: symbols.map((symbol) => symbol.name), values: symbols.filter(value).map((symbol) => symbol.name) };
}

describe('the declared list', () => {
  test('holds the request and answer schema of every endpoint of the registry', () => {
    expect(ENDPOINT_SCHEMAS_MISSING).toEqual([]);
  });

  test('names each export once, each group with a one-line reason', () => {
    expect(declared.filter((name, index) => declared.indexOf(name) !== index)).toEqual([]);
    for (const group of DECLARED) expect(group.reason).toMatch(/^I [^\n]{10,100}$/);
  });
});

describe('payorch, the main entry', () => {
  test.each([
    ['ESM', main.types],
    ['CommonJS', main.ctypes],
  ])('its %s declarations export exactly the declared names, values only where the build has them', (_label, file) => {
    const { names, values } = exportsOf(join(root, file));
    expect(sorted(names), 'the names src/index.ts exports are not those of the groups above: put a new name in a group (with the reason a user imports it), or keep it in its module').toEqual(sorted(declared));
    // A schema's name is a value in the source module; on this entry it must stay a type, or
    // `Welcome.parse()` imported from payorch compiles and is undefined at run time.
    expect(sorted(values)).toEqual(sorted(declaredValues));
  }, 60_000);

  test('its ESM and CommonJS builds hold exactly the declared values at run time', async () => {
    const esm = (await import(pathToFileURL(join(root, main.esm)).href)) as Record<string, unknown>;
    const cjs = createRequire(import.meta.url)(join(root, main.cjs)) as Record<string, unknown>;
    expect(sorted(Object.keys(esm))).toEqual(sorted(declaredValues));
    expect(sorted(Object.keys(cjs).filter((name) => name !== '__esModule'))).toEqual(sorted(declaredValues));
  });

  test('payorch/webhooks exports only names the main entry declares, values only where its build has them', async () => {
    const { names, values } = exportsOf(join(root, webhooks.types));
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !declared.includes(name))).toEqual([]);
    // The callback types (DepositCallback...) are types there: their schemas are payorch/schemas'.
    const runtime = Object.keys((await import(pathToFileURL(join(root, webhooks.esm)).href)) as Record<string, unknown>);
    expect(sorted(values)).toEqual(sorted(runtime));
  }, 60_000);
});

describe('payorch/schemas', () => {
  const builds = [
    ['ESM', schemas.types, async () => (await import(pathToFileURL(join(root, schemas.esm)).href)) as Record<string, unknown>],
    ['CommonJS', schemas.ctypes, () => Promise.resolve(createRequire(import.meta.url)(join(root, schemas.cjs)) as Record<string, unknown>)],
  ] as const;

  test.each(builds)('its %s build exports, as values and types, exactly the schemas whose types payorch exports', async (_label, declarations, load) => {
    const { names, values } = exportsOf(join(root, declarations));
    expect(sorted(names)).toEqual(sorted(declaredSchemas));
    expect(sorted(values)).toEqual(sorted(declaredSchemas));
    const module = await load();
    expect(sorted(Object.keys(module).filter((name) => name !== '__esModule'))).toEqual(sorted(declaredSchemas));
    // Each a zod schema: zod's core marks every schema with `_zod`, and parse is its own.
    const notSchemas = declaredSchemas.filter((name) => {
      const schema = module[name];
      return typeof schema !== 'object' || schema === null || !('_zod' in schema) || !('safeParse' in schema);
    });
    expect(notSchemas).toEqual([]);
  }, 60_000);
});
