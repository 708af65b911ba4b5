import { RequestValidationError } from '../errors/error.js';
import type { ValidationIssue } from '../errors/error.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import { isLoopbackHostname } from './loopback.js';
import type { RequestOptions } from './request-options.js';

/*
 * The options a user gives a client, a call, verifyCallback, signCallback, a receiver, an inbox or
 * the sandbox, declared as data and checked by one function. An impossible value must fail where
 * it is given, naming the option, the value's problem and the range: left alone, a `timeout` of
 * Infinity becomes a 1 ms timer (Node clamps it) and a payment that went through is reported as
 * timed out; a `maxRetries` of NaN retries without end; an empty key hashes as "". The error is a
 * RequestValidationError with the rule `invalid_option`: nothing was sent, fix the input.
 * Plain data, no zod: payorch/postgres loads this module and must not load zod.
 */

/** Largest delay a timer takes: Node clamps anything larger (or not finite) to 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Largest retention or lifetime an option takes: longer is a typo for a shorter unit, not a plan. */
export const TEN_YEARS_SECONDS = 10 * 365 * 86_400;

/** What an option's value must be. */
export type OptionRule =
  /** A finite number within [min, max] (an integer when `integer`); `unit` is named in the refusal. */
  | { readonly type: 'number'; readonly min: number; readonly max: number; readonly integer?: boolean; readonly unit?: string }
  /** A key: non-empty text, never shown in the refusal (it may be a secret). */
  | { readonly type: 'key' }
  /** Text that is not blank, of at most `maxLength` characters, matching `pattern` when given. */
  | { readonly type: 'text'; readonly maxLength: number; readonly pattern?: RegExp; readonly allowed?: string }
  | { readonly type: 'function' }
  | { readonly type: 'boolean' }
  | { readonly type: 'oneOf'; readonly values: readonly string[] }
  /** An object with these methods; `allowed` says what it is. */
  | { readonly type: 'object'; readonly methods: readonly string[]; readonly allowed: string }
  | { readonly type: 'httpUrl' }
  /**
   * The service's address: https, or plain http on a loopback host or when the boolean option
   * `insecureUnless` is true; no user name, password, query or fragment.
   */
  | { readonly type: 'serviceUrl'; readonly insecureUnless: string; readonly problem: ServiceUrlCheck }
  /** A Date or milliseconds since 1970, within [min, max]. */
  | { readonly type: 'time'; readonly min: number; readonly max: number };

/**
 * One option: where it is read (a dotted path for nested options), what it must be, and where it
 * usually comes from. `TName` is the names it may take: `OptionName<TheOptions>` through
 * `declareOptions`, so that a misspelt name fails to compile rather than check nothing.
 */
export interface OptionDeclaration<TName extends string = string> {
  readonly name: TName;
  readonly rule: OptionRule;
  /**
   * The value used when the option is left out, where one value says it; the code reads it from
   * here, and the interface's JSDoc `@default` is held to it by a test.
   */
  readonly default?: number | string | boolean;
  /** Refuse `undefined` too. @default false */
  readonly required?: boolean;
  /** The environment variable(s) the examples read it from, named in the refusal. */
  readonly env?: string;
  /** Why the range is what it is, when that is not obvious; shown in the refusal. */
  readonly note?: string;
}

/**
 * The names an options interface's declarations may take: each key, and `key.inner` for an option
 * one level down (the sandbox's `callbackRetry.attempts`). Functions are options, not objects of them.
 */
export type OptionName<TOptions> = {
  [TKey in keyof TOptions & string]-?: NonNullable<TOptions[TKey]> extends (...args: never[]) => unknown
    ? TKey
    : NonNullable<TOptions[TKey]> extends readonly unknown[]
      ? TKey
      : NonNullable<TOptions[TKey]> extends object
        ? TKey | `${TKey}.${keyof NonNullable<TOptions[TKey]> & string}`
        : TKey;
}[keyof TOptions & string];

type TopName<TName extends string> = TName extends `${infer THead}.${string}` ? THead : TName;

/** The keys of `TOptions` that none of the declarations named `TName` reads. */
type Undeclared<TOptions, TName extends string> = Exclude<keyof TOptions & string, TopName<TName>>;

/**
 * Declarations held to the options interface they check: `declareOptions<TheOptions>()([...])`.
 * A name that is not an option of `TOptions` does not compile, and neither does leaving an option
 * undeclared unless the second argument says why it is taken as given (`{ seed: 'any text or number' }`).
 * Returns the declarations as they are.
 */
export function declareOptions<TOptions>() {
  return <const TDeclarations extends readonly OptionDeclaration<OptionName<TOptions>>[]>(
    declarations: TDeclarations,
    ...unchecked: [Undeclared<TOptions, TDeclarations[number]['name']>] extends [never]
      ? []
      : [whyUnchecked: Readonly<Record<Undeclared<TOptions, TDeclarations[number]['name']>, string>>]
  ): readonly OptionDeclaration<TDeclarations[number]['name']>[] => {
    // Declared and unchecked, these are every option of the interface: checkOptions refuses any
    // other. The set of their names is made on the first check, not at import.
    UNCHECKED.set(declarations, unchecked[0] ?? {});
    return declarations;
  };
}

/**
 * `first`'s declarations, then `rest`'s, as one list. Not an array spread: a bundler keeps a
 * spread (it may run an iterator), and with it a list no code of the bundle reads.
 */
export function joinOptions<const TFirst extends readonly OptionDeclaration[], const TRest extends readonly OptionDeclaration[]>(first: TFirst, rest: TRest): readonly [...TFirst, ...TRest] {
  return [...first, ...rest];
}

/**
 * Declarations that are every option of what they check, though not made by `declareOptions`: a
 * part of another's (withOptions() takes a client's settings, not its keys). checkOptions then
 * refuses any other name. Returns the declarations as they are.
 */
export function everyOption<TDeclarations extends readonly OptionDeclaration[]>(declarations: TDeclarations): TDeclarations {
  UNCHECKED.set(declarations, {});
  return declarations;
}

/**
 * What a sandbox account (`sandbox.accounts.provider` or `.dealer` of payorch/sandbox) holds
 * besides its keys. The guides spread an account into a client, and into verifyCallback and
 * signCallback, which read its apiKey and secretKey only: there these fields are taken as given,
 * and not listed among the options. No option of those has one of these names.
 */
const SANDBOX_ACCOUNT_FIELDS: readonly string[] = ['key', 'sites', 'previous'];

/**
 * Declarations made by `declareOptions` that also take a sandbox account spread in (its site-list
 * `key`, its `sites`, its `previous` keys), as the guides do with the clients, verifyCallback and
 * signCallback. Returns the declarations as they are.
 */
export function takingSandboxAccounts<TDeclarations extends readonly OptionDeclaration[]>(declarations: TDeclarations): TDeclarations {
  ACCOUNT_TAKERS.add(declarations);
  return declarations;
}

/** The options each `declareOptions` result takes as given, with why. */
const UNCHECKED = new WeakMap<readonly OptionDeclaration[], Readonly<Record<string, string>>>();
/** The declarations that take a sandbox account spread in. */
const ACCOUNT_TAKERS = new WeakSet<readonly OptionDeclaration[]>();

/** The names each `declareOptions` result accepts, made on its first check. */
const OPTION_NAMES = new WeakMap<readonly OptionDeclaration[], ReadonlySet<string>>();

/** The names `declarations` accept, when `declareOptions` made them; undefined otherwise. */
function optionNames(declarations: readonly OptionDeclaration[]): ReadonlySet<string> | undefined {
  let names = OPTION_NAMES.get(declarations);
  if (names !== undefined) return names;
  const unchecked = UNCHECKED.get(declarations);
  if (unchecked === undefined) return undefined;
  names = new Set([...declarations.map((declaration) => declaration.name.split('.')[0] ?? declaration.name), ...Object.keys(unchecked), ...(ACCOUNT_TAKERS.has(declarations) ? SANDBOX_ACCOUNT_FIELDS : [])]);
  OPTION_NAMES.set(declarations, names);
  return names;
}

/**
 * Options renamed before this release (CHANGELOG.md), by their old name: given the old one, an
 * upgrade would otherwise run without it (a receiver recording under its API key instead of
 * `merchantId`).
 */
const RENAMED_OPTIONS: Readonly<Record<string, string>> = { accountName: 'merchantId', readOnly: 'resendable', retryLimit: 'retries', attempts: 'retries', backoffMs: 'retryDelaySeconds' };

/** How a renamed option's value changes under its new name, where it does (the queues' one vocabulary). */
const RENAMED_VALUES: Readonly<Record<string, string>> = { attempts: 'one less: retries counts those after the first attempt', backoffMs: 'in seconds: backoffMs / 1000' };

/**
 * Not refused where unknown: the account's third key. One keys object (`{ apiKey, secretKey,
 * credentialKey }`) is commonly given to the client and to the receiver or signCallback, which
 * need two of them; it names nothing they could mean instead.
 */
const SHARED_KEY_NAMES: ReadonlySet<string> = new Set(['credentialKey']);

/**
 * Refuses an option `names` does not accept that was renamed to one it accepts, naming the new
 * name, and any other it does not accept but the account's `credentialKey`.
 */
function refuseUnknown(where: string, options: object, accepted: ReadonlySet<string>): void {
  for (const [name, value] of Object.entries(options)) {
    if (accepted.has(name) || value === undefined) continue;
    const renamed = Object.hasOwn(RENAMED_OPTIONS, name) ? RENAMED_OPTIONS[name] : undefined;
    let message: string;
    if (renamed !== undefined && accepted.has(renamed)) message = `was renamed ${renamed}: pass its value as ${renamed}${Object.hasOwn(RENAMED_VALUES, name) ? `, ${RENAMED_VALUES[name] ?? ''}` : ''}`;
    // A sandbox account's fields are taken, not listed: they are no option.
    else if (!SHARED_KEY_NAMES.has(name)) message = `is not an option of ${where} (misspelt, or removed?); its options are ${[...accepted].filter((each) => !SANDBOX_ACCOUNT_FIELDS.includes(each)).join(', ')}`;
    else continue;
    throw new RequestValidationError(where, [{ field: name, rule: 'invalid_option', message }]);
  }
}

/**
 * Refuses, as checkOptions does, a name `declarations` do not know, and checks no value: for a
 * caller that checks the values later (a client, after reading the environment) or did before
 * (verifyCallback, given its last values again). Anything but an object is left to checkOptions.
 * Allocates nothing unless it refuses.
 */
export function checkNames(where: string, options: unknown, declarations: readonly OptionDeclaration[]): void {
  if (typeof options !== 'object' || options === null) return;
  const names = optionNames(declarations);
  if (names === undefined) return;
  for (const name in options) {
    if (!names.has(name) && !SHARED_KEY_NAMES.has(name)) {
      refuseUnknown(where, options, names);
      return;
    }
  }
}

function shownValueOrType(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : value.toISOString();
  return typeof value;
}

function quoteList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1) ?? ''}`;
}

/** What the rule allows, as the refusal words it. */
export function allowedBy(rule: OptionRule): string {
  switch (rule.type) {
    case 'number': {
      if (rule.integer === true) return rule.min === 1 && rule.max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer from ${rule.min} to ${rule.max}`;
      const kind = rule.unit === undefined ? 'a finite number' : `a finite number of ${rule.unit}`;
      if (rule.max === Infinity) return rule.min === -Infinity ? kind : `${kind}, ${rule.min} or more`;
      return `${kind} from ${rule.min} to ${rule.max}`;
    }
    case 'key':
      return 'a non-empty string';
    case 'text':
      return rule.allowed ?? `a non-empty string of at most ${rule.maxLength} characters`;
    case 'function':
      return 'a function';
    case 'boolean':
      return 'true or false';
    case 'oneOf':
      return rule.values.length > 2 ? `one of ${quoteList(rule.values)}` : quoteList(rule.values);
    case 'object':
      return rule.allowed;
    case 'httpUrl':
      return 'an absolute http or https URL';
    case 'serviceUrl':
      return 'an absolute https URL, for example https://pay.example.com';
    case 'time':
      return `a Date or milliseconds since 1970, from ${new Date(rule.min).toISOString()} to ${new Date(rule.max).toISOString()}`;
  }
}

function accepts(rule: OptionRule, value: unknown): boolean {
  switch (rule.type) {
    case 'serviceUrl':
      return typeof value === 'string' && URL.canParse(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= rule.min && value <= rule.max && (rule.integer !== true || Number.isSafeInteger(value));
    case 'key':
      return typeof value === 'string' && value !== '';
    case 'text':
      return typeof value === 'string' && value.trim() !== '' && value.length <= rule.maxLength && (rule.pattern === undefined || rule.pattern.test(value));
    case 'function':
      return typeof value === 'function';
    case 'boolean':
      return typeof value === 'boolean';
    case 'oneOf':
      return typeof value === 'string' && rule.values.includes(value);
    case 'object':
      return typeof value === 'object' && value !== null && rule.methods.every((method) => typeof (value as Readonly<Record<string, unknown>>)[method] === 'function');
    case 'httpUrl': {
      const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
      return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:');
    }
    case 'time': {
      const ms = value instanceof Date ? value.getTime() : value;
      return typeof ms === 'number' && Number.isFinite(ms) && ms >= rule.min && ms <= rule.max;
    }
  }
}

/**
 * What is wrong with a URL that parses; undefined when nothing is. Carried by the rule rather than
 * called by name, so that a bundle that checks no service address (verifyCallback alone) leaves
 * this check out.
 */
export type ServiceUrlCheck = (url: URL, insecureAllowed: boolean) => string | undefined;

/**
 * What is wrong with a URL that parses, for the service's address; undefined when nothing is.
 * The value itself is never quoted: a URL may carry a user name and password.
 */
function serviceUrlProblem(url: URL, insecureAllowed: boolean): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must use https; got ${url.protocol}//${url.host}`;
  // They would be sent to the service and shown in every error message.
  if (url.username !== '' || url.password !== '') return `must not contain a user name or password; got ${url.protocol}//[redacted]@${url.host}`;
  // Signatures cover no part of the body: over plain HTTP anyone on the path could change an amount or an IBAN.
  if (url.protocol === 'http:' && !insecureAllowed && !isLoopbackHostname(url.hostname)) {
    return `must use https unless the host is loopback or allowInsecureHttp is set (signatures do not cover the body); got ${url.protocol}//${url.host}`;
  }
  if (url.search !== '' || url.hash !== '') return `must not have a query or fragment; got ${url.protocol}//${url.host}${url.pathname} with a ${url.search !== '' ? 'query' : 'fragment'}`;
  const appended = API_SUFFIX.exec(url.pathname);
  if (appended !== null) {
    const root = `${url.protocol}//${url.host}${url.pathname.slice(0, appended.index) || '/'}`;
    return `must be the service's root: payorch appends /api/provider and /api/dealer itself, so ${url.protocol}//${url.host}${url.pathname} would call ${url.pathname.replace(/\/+$/, '')}/api/…; use ${root}`;
  }
  return undefined;
}

// The paths the clients append themselves. Any other prefix (a reverse proxy's /payments) is the service's root.
const API_SUFFIX = /\/api(?:\/provider|\/dealer)?\/*$/;

/** The one refusal of a bad option. A key's value is never shown: only what is wrong with it. */
function refuse(where: string, declaration: OptionDeclaration, message: string): never {
  throw new RequestValidationError(where, [{ field: declaration.name, rule: 'invalid_option', message }]);
}

function shownGot(rule: OptionRule, value: unknown): string {
  if (rule.type === 'key') return value === undefined ? 'undefined' : value === '' ? 'an empty string' : typeof value;
  if (rule.type === 'serviceUrl') return typeof value === 'string' ? 'text that is not a URL' : typeof value;
  return shownValueOrType(value);
}

/**
 * One value against its declaration; for values read at run time (a clock reading). `options`
 * holds its siblings, for a rule that reads one (`serviceUrl`).
 */
export function checkValue(where: string, declaration: OptionDeclaration, value: unknown, options?: object): void {
  if (value === undefined && declaration.required !== true) return;
  const { rule } = declaration;
  if (!accepts(rule, value)) {
    const notes = [declaration.env === undefined ? undefined : `for example from ${declaration.env}`, declaration.note].filter((note) => note !== undefined);
    refuse(where, declaration, `must be ${allowedBy(rule)}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}; got ${shownGot(rule, value)}`);
  }
  if (rule.type === 'serviceUrl') {
    const problem = rule.problem(new URL(value as string), options !== undefined && read(options, rule.insecureUnless) === true);
    if (problem !== undefined) refuse(where, declaration, problem);
  }
}

function read(options: object, path: string): unknown {
  // Most names are one level: no split (an array per option per call, on every request).
  if (!path.includes('.')) return (options as Readonly<Record<string, unknown>>)[path];
  let value: unknown = options;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Readonly<Record<string, unknown>>)[part];
  }
  return value;
}

/**
 * Checks `options` against its declarations, in their order; the first bad one is refused.
 * `undefined` options count as `{}` only when no declaration is required. Declarations made by
 * `declareOptions` know every option of their interface: a name renamed to one of them is refused
 * first, then any other name, except the account's `credentialKey` and, where
 * `takingSandboxAccounts` says so, a sandbox account's other fields.
 */
export function checkOptions(where: string, options: unknown, declarations: readonly OptionDeclaration[]): void {
  if (typeof options !== 'object' || options === null) {
    if (options === undefined && !declarations.some((declaration) => declaration.required === true)) return;
    const required = declarations.filter((declaration) => declaration.required === true).map((declaration) => declaration.name);
    throw new RequestValidationError(where, [
      { field: '(options)', rule: 'invalid_option', message: `must be an object${required.length === 0 ? '' : ` with ${required.join(' and ')}`}; got ${shownValueOrType(options)}` },
    ]);
  }
  const names = optionNames(declarations);
  if (names !== undefined) refuseUnknown(where, options, names);
  for (const declaration of declarations) checkValue(where, declaration, read(options, declaration.name), options);
}

/** A list option's rule: its length, what its entries are, and what makes one bad. */
export interface ListRule {
  readonly min: number;
  readonly max: number;
  /** The entries, for messages: `card payment tracking codes (CC-…)`. */
  readonly items: string;
  /** One entry, for the repeat message: `code`. */
  readonly item: string;
  /** Why one entry is refused, or undefined when it is accepted. */
  readonly problem: (value: unknown) => string | undefined;
}

/**
 * A list option (tracking codes, transfer ids): an array of `min` to `max` entries, each accepted
 * by the rule and given once. Every bad entry is named at once (the first 20), so that a list built
 * by a query is fixed in one go, not one entry per run; a repeat is refused, not read once, since
 * it is a bug in the query that built the list.
 */
export function checkList(where: string, field: string, values: unknown, rule: ListRule): readonly string[] {
  const refuseList = (message: string): never => {
    throw new RequestValidationError(where, [{ field, rule: 'invalid_option', message }]);
  };
  if (!Array.isArray(values)) return refuseList(`must be an array of ${rule.items}; got ${shownValueOrType(values)}`);
  if (values.length < rule.min || values.length > rule.max) refuseList(`must hold from ${rule.min} to ${rule.max} ${rule.items}; got ${values.length}`);
  const issues: ValidationIssue[] = [];
  const seen = new Map<unknown, number>();
  values.forEach((value: unknown, index) => {
    const problem = rule.problem(value);
    const first = seen.get(value);
    if (problem !== undefined) issues.push({ field: `${field}[${index}]`, rule: 'invalid_option', message: problem });
    else if (first !== undefined) issues.push({ field: `${field}[${index}]`, rule: 'invalid_option', message: `repeats ${field}[${first}]: give each ${rule.item} once` });
    else seen.set(value, index);
  });
  if (issues.length > 0) throw new RequestValidationError(where, issues.slice(0, 20));
  return values as string[];
}

/** An OpenTelemetry Tracer, or anything with its `startActiveSpan`. */
export const TRACER_OPTION: OptionDeclaration<'tracer'> = {
  name: 'tracer',
  rule: { type: 'object', methods: ['startActiveSpan'], allowed: "an OpenTelemetry Tracer (an object with a startActiveSpan method), for example trace.getTracer('my-app')" },
};

/** An OpenTelemetry Meter, or anything with the three instruments a receiver creates. */
export const METER_OPTION: OptionDeclaration<'meter'> = {
  name: 'meter',
  rule: {
    type: 'object',
    methods: ['createCounter', 'createHistogram', 'createObservableUpDownCounter'],
    allowed: "an OpenTelemetry Meter (an object with createCounter, createHistogram and createObservableUpDownCounter methods), for example metrics.getMeter('my-app')",
  },
};

/** A Logger: console, pino or anything with its four methods; checked once, not at the first failure it should report. */
export const LOGGER_OPTION: OptionDeclaration<'logger'> = {
  name: 'logger',
  rule: { type: 'object', methods: ['debug', 'info', 'warn', 'error'], allowed: 'a Logger (an object with debug, info, warn and error methods), for example console' },
};

// The clients' per-call options and base URL are declared here rather than beside ClientOptions
// (client-options.ts) because the `payorch` command checks its flags by them too: this module is
// in the file every entry shares (dist/webhooks/core.js), where the command finds them without
// the main entry's own files being cut into one more chunk (docs/decisions.md, "The CLI uses the
// public surfaces"). Each default its own constant, not one object: a bundler inlines a constant
// number where it is read.
export const DEFAULT_CLIENT_TIMEOUT_MS = 30_000;
export const DEFAULT_CLIENT_MAX_RETRIES = 2;

/** Retries beyond this only lengthen an outage; the backoff reaches its 8 s cap by then. */
const MAX_RETRIES_CAP = 10;

/** What a client sets for its calls and a single call may override: `timeout` and `maxRetries`. */
export const CALL_SETTINGS = declareOptions<Omit<RequestOptions, 'signal'>>()([
  { name: 'timeout', rule: { type: 'number', min: 1, max: MAX_TIMEOUT_MS, unit: 'milliseconds' }, default: DEFAULT_CLIENT_TIMEOUT_MS },
  { name: 'maxRetries', rule: { type: 'number', min: 0, max: MAX_RETRIES_CAP, integer: true }, default: DEFAULT_CLIENT_MAX_RETRIES },
]);

/** The options of a single call: its settings and its `signal`. Cheap enough for every call. */
export const REQUEST_OPTIONS = declareOptions<RequestOptions>()(joinOptions(CALL_SETTINGS, [{ name: 'signal', rule: { type: 'object', methods: ['addEventListener', 'removeEventListener'], allowed: 'an AbortSignal' } }]));

/** A provider site's credential key (spec 5.1), on the client or on one call. */
export const SITE_KEY_OPTION = { name: 'credentialKey', rule: { type: 'key' }, env: ENVIRONMENT_NAMES.credentialKey } as const satisfies OptionDeclaration<'credentialKey'>;

/** The options of a single Provider API call: a call's, and the site it acts for. */
export const PROVIDER_REQUEST_OPTIONS = declareOptions<RequestOptions & { readonly credentialKey?: string | undefined }>()(joinOptions(REQUEST_OPTIONS, [SITE_KEY_OPTION]));

/** The service's address every client is given. */
export const BASE_URL_OPTION: OptionDeclaration<'baseUrl'> = { name: 'baseUrl', rule: { type: 'serviceUrl', insecureUnless: 'allowInsecureHttp', problem: serviceUrlProblem }, required: true };

/** The service's root URL, without a trailing slash, once `baseUrl` passed its rule; refuses it otherwise. */
export function checkBaseUrl(owner: string, baseUrl: unknown, allowInsecureHttp: boolean): string {
  checkValue(owner, BASE_URL_OPTION, baseUrl, { allowInsecureHttp });
  return new URL(baseUrl as string).href.replace(/\/+$/, '');
}
