// The API reference (`npm run docs`).
import { ENTRIES } from './scripts/entries.mjs';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  // Every entry of package.json `exports`, the one list of them (scripts/entries.mjs).
  entryPoints: ENTRIES.map((each) => each.source),
  out: 'docs/api',
  includeVersion: true,
  tsconfig: 'tsconfig.json',
  excludeInternal: true,
  excludePrivate: true,
  treatWarningsAsErrors: true,
  intentionallyNotExported: [
    'LenientObject',
    'EnvelopeShape',
    'CallbackSchema',
    'CREDIT_CARD_CALLBACK_FIELDS',
    'DEALER_CREDIT_CARD_CALLBACK_FIELDS',
    'DEPOSIT_CALLBACK_FIELDS',
    'UNKNOWN_CALLBACK_FIELDS',
    'WITHDRAWAL_CALLBACK_FIELDS',
    'EibanDepositRecordShape',
    'IbanWithdrawalRecordShape',
    'ManualDepositRecordShape',
    'RecordCoreShape',
    'RecordEchoShape',
    'SpanAttributeValue',
    'CALLBACK_STATUSES',
    'TRANSFER_END_STATUSES',
    'DepositCallbackStatus',
    'WithdrawalCallbackStatus',
    'CreditCardCallbackStatus',
    'DealerCreditCardCallbackStatus',
    'InstrumentOptionsLike'
  ],
  validation: {
    notExported: true,
    invalidLink: true,
    notDocumented: true
  },
  readme: 'README.md',
  projectDocuments: [
    'docs/getting-started.md',
    'docs/provider.md',
    'docs/dealer.md',
    'docs/receiving-callbacks.md',
    'docs/inboxes.md',
    'docs/recovering-callbacks.md',
    'docs/testing-receivers.md',
    'docs/rotating-keys.md',
    'docs/deferred.md',
    'docs/errors-and-retries.md',
    'docs/sandbox.md',
    'docs/cli.md',
    'docs/runtimes-and-proxies.md',
    'docs/api-reference.md',
    'docs/spec-gaps.md',
    'CHANGELOG.md'
  ],
  navigation: {
    includeCategories: false,
    includeGroups: true,
    includeFolders: false
  },
  groupOrder: [
    'Documents',
    'Modules',
    'Provider API',
    'Dealer API',
    'Callbacks and receiver',
    'Errors',
    'Options, signing and tracking codes',
    'Sandbox',
    'PostgreSQL',
    'Cloudflare',
    'Queues',
    'Testing inboxes and queues',
    '*'
  ],
  highlightLanguages: [
    'bash',
    'console',
    'css',
    'html',
    'javascript',
    'json',
    'jsonc',
    'json5',
    'yaml',
    'tsx',
    'typescript',
    'sql',
    'toml'
  ],
  plugin: [
    'typedoc-plugin-zod',
    './scripts/typedoc-groups.mjs'
  ],
  disableSources: true,
  requiredToBeDocumented: [
    'Enum',
    'Variable',
    'Function',
    'Class',
    'Interface',
    'Method',
    'Accessor',
    'TypeAlias',
    'Constructor'
  ]
};
