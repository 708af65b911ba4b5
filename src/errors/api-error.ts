import { callLabel, outcomeSentence } from './call-message.js';
import type { CallOutcome, FailedCall } from './call-message.js';
import { PayorchError } from './error.js';
import { printable } from './printable.js';
import type { ValidationIssue } from './error.js';

/*
 * What a call through the transport ends in: the errors made from a failed or unreadable answer
 * of the service, with the one mapping from an answer to its class (`APIError.generate`),
 * `TimeoutError` and `RequestAbortedError`. Apart from error.ts because only the clients need
 * them: a bundler keeps every class of a chunk it loads (a static block counts as a side effect),
 * so in error.ts they would weigh on payorch/webhooks and on `verifyCallback` alone
 * (docs/decisions.md).
 *
 * The answer errors keep the secrets the service echoes back out of everything they hold: it may
 * quote the credential key or the X-Hash in a refusal (spec 7.3: "with an explanatory message"),
 * and whatever an error holds reaches logs: `util.inspect(err)`, `JSON.stringify(err)`, pino.
 */

const REDACTED = '[redacted]';
// Short values are skipped: hiding every "1" of a message would hide nothing and garble the rest.
const MIN_REDACTED_LENGTH = 4;
// Deeper than any answer the service sends; bounds the recursion on a hostile one.
const MAX_DEPTH = 64;

/** The characters of a base64 key that escapers disagree on: some escape them, some do not. */
type EscapedCharacter = '/' | '+' | '=';
const ESCAPED_CHARACTERS: readonly EscapedCharacter[] = ['/', '+', '='];
/**
 * The ways they are escaped where encoders leave some as they are: a URL (Python's `quote` keeps
 * `/`), in either case, and an HTML page's entities: hex in capitals, hex in lower case, decimal, named.
 */
const ESCAPE_WAYS: readonly Readonly<Record<EscapedCharacter, string>>[] = [
  { '/': '%2F', '+': '%2B', '=': '%3D' },
  { '/': '%2f', '+': '%2b', '=': '%3d' },
  { '/': '&#x2F;', '+': '&#x2B;', '=': '&#x3D;' },
  { '/': '&#x2f;', '+': '&#x2b;', '=': '&#x3d;' },
  { '/': '&#47;', '+': '&#43;', '=': '&#61;' },
  { '/': '&sol;', '+': '&plus;', '=': '&equals;' },
];

/**
 * Every form in which `secrets` may appear in text: as given, in either letter case (a hex hash
 * is the same hash in capitals), escaped inside a JSON string (PHP's `\/` and `\uXXXX` too), in a URL (its
 * escapes in either case, `/`, `+` and `=` escaped or not), and in an HTML page (those as entities).
 */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets as readonly unknown[]) {
    // Only text can be echoed; a value that is not (a key given as a number) must not make redaction throw.
    if (typeof secret !== 'string' || secret.length < MIN_REDACTED_LENGTH) continue;
    const json = JSON.stringify(secret).slice(1, -1);
    // PHP's json_encode and Python's json.dumps write every character past ASCII as \uXXXX.
    const asciiJson = json.replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const url = encodeURIComponent(secret);
    for (const form of [secret, secret.toLowerCase(), secret.toUpperCase(), json, json.replaceAll('/', '\\/'), asciiJson, asciiJson.replaceAll('/', '\\/'), url, url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()), ...partlyEscapedForms(secret)]) {
      forms.add(form);
    }
  }
  // Longest first, so that a secret containing another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * `secret` with some of `/`, `+` and `=` escaped. Each encoder leaves a different part of them as
 * it is (one escapes `/` only, another `+` only), so each choice of them is a form, in each way of
 * escaping: at most 42, and none for a key without them (a hex hash).
 */
function partlyEscapedForms(secret: string): string[] {
  const present = ESCAPED_CHARACTERS.filter((character) => secret.includes(character));
  const forms: string[] = [];
  for (let chosen = 1; chosen < 1 << present.length; chosen++) {
    for (const escapes of ESCAPE_WAYS) {
      let form = secret;
      for (const [index, character] of present.entries()) {
        if ((chosen & (1 << index)) !== 0) form = form.replaceAll(character, escapes[character]);
      }
      forms.push(form);
    }
  }
  return forms;
}

/** `text` with every form of every secret replaced by `[redacted]`. */
export function redactText(text: string, forms: readonly string[]): string {
  let result = text;
  for (const form of forms) {
    if (result.includes(form)) result = result.split(form).join(REDACTED);
  }
  return result;
}

/**
 * A copy of a parsed JSON value (or any plain data) with every string, and every object key,
 * redacted. Values that hold no secret are returned as they are.
 */
function redactValue(value: unknown, forms: readonly string[], depth = 0): unknown {
  if (forms.length === 0) return value;
  if (typeof value === 'string') return redactText(value, forms);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((entry: unknown) => redactValue(entry, forms, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    copy[redactText(key, forms)] = redactValue(entry, forms, depth + 1);
  }
  return copy;
}

/**
 * Error codes the Dealer API names (spec 7.4). Open: a code the service adds later
 * still arrives as a string.
 */
export type DealerErrorCode =
  | 'DATE_RANGE_EXCEEDED'
  | 'INVALID_DATE_RANGE'
  | 'WALLET_NOT_ASSIGNED'
  | 'INSUFFICIENT_BALANCE'
  | 'INVALID_IBAN'
  | 'MIN_AMOUNT_ERROR'
  | (string & {});

/**
 * Why the service refused the caller: the six failures of spec 7.1, a site credential key that is
 * not the provider's (spec 5.1 rule 3, 7.3), or `unknown` for a text the spec does not list.
 */
export type AuthFailureReason =
  | 'missing_headers'
  | 'invalid_api_key'
  | 'timestamp_expired'
  | 'invalid_hash'
  | 'provider_inactive'
  | 'ip_not_allowed'
  | 'credential_key_refused'
  | 'unknown';

/** What an {@link APIError} knows about the request that failed; never holds credentials. */
export interface FailedRequest {
  /** The HTTP method sent: `GET` or `POST`. */
  readonly method: string;
  /** The full URL sent, query string included (it carries no key: keys travel in headers). */
  readonly url: string;
}

/** What an {@link APIError} is made from: the answer and the request it answered. */
export interface APIErrorInit {
  /** HTTP status of the answer; 0 when the platform hid it. */
  readonly status: number;
  /** Response headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when the answer was not JSON. */
  readonly body: unknown;
  /** The request that got this answer. */
  readonly request: FailedRequest;
  /**
   * Values that must not appear anywhere in the error (the secret key, every hash sent, a
   * credential key, an X-Key): replaced by `[redacted]` in the message, `body` and `headers` when
   * the service echoes them. Everything else of the answer is kept as sent.
   */
  readonly redact?: readonly string[] | undefined;
  /** What went wrong, when the SDK knows better than the body (an answer it did not read). */
  readonly summary?: string | undefined;
  /**
   * Whether the service may have acted on the request. The transport always says; when it is not
   * given, a 4xx or a `success: false` answer is `refused`, anything else `unknown`.
   */
  readonly outcome?: CallOutcome | undefined;
  /** The client method it answered and whether it is resendable, for the message's sentence on whether money may have moved. */
  readonly call?: { readonly operation: string; readonly resendable?: boolean | undefined } | undefined;
}

/**
 * The service answered, and the answer is a failure: an HTTP error status, a body with
 * `success: false`, or a body that is not JSON (a proxy's HTML page).
 *
 * @example
 * ```ts
 * import { APIError } from 'payorch';
 * import type { ProviderClient } from 'payorch';
 * declare const provider: ProviderClient;
 * try {
 *   await provider.manual.startWithdrawal({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', iban: 'TR330006100519786457841326', amount: 100 });
 * } catch (error) {
 *   if (error instanceof APIError) console.error(error.status, error.error, error.messages);
 *   throw error;
 * }
 * ```
 */
export class APIError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'APIError';
  /** HTTP status of the answer; 0 when the platform hid it (an opaque redirect). */
  readonly status: number;
  /** Response headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's `error` text, when it has one (for example `Invalid hash`, `Doğrulama hatası`). */
  readonly error: string | undefined;
  /** The body's `messages` list of a validation failure (spec 7.2), one entry per failed rule. */
  readonly messages: readonly string[] | undefined;
  /** A machine-readable code (dealer codes of spec 7.4), read from `code`, `error_code` or a code-shaped `error`. */
  readonly code: DealerErrorCode | undefined;
  /**
   * Why the service refused the caller, read from the body's text (spec 7.1, 7.3): set on an
   * {@link AuthenticationError} and a {@link PermissionDeniedError} (`unknown` for a text the spec
   * does not list), `undefined` on every other answer.
   */
  readonly reason: AuthFailureReason | undefined;
  /** The parsed JSON body, or the raw text when it was not JSON. Nothing is dropped but echoed secrets, shown as `[redacted]`. */
  readonly body: unknown;
  /**
   * The method (`GET` or `POST`) and the full URL of the request that failed, query string
   * included; never its headers, which carry the keys.
   */
  readonly request: { readonly method: string; readonly url: string };

  /**
   * Made by the SDK's one mapping of failed answers, `APIError.generate`.
   * @internal
   */
  constructor(message: string, init: APIErrorInit) {
    const forms = secretForms(init.redact ?? []);
    super(redactText(message, forms), { outcome: defaultOutcome(init) });
    this.status = init.status;
    this.headers = redactValue(init.headers, forms) as Readonly<Record<string, string>>;
    this.body = redactValue(init.body, forms);
    this.request = init.request;
    const record = asRecord(this.body);
    this.error = stringField(record, 'error');
    this.messages = stringList(record?.['messages']);
    this.code = readCode(record);
    // The subclasses' one difference is the type of `reason`, so the parent fills it for them.
    this.reason = authReason(record) ?? (this instanceof AuthenticationError || this instanceof PermissionDeniedError ? 'unknown' : undefined);
  }

  /**
   * Maps a failed answer to the most specific subclass. The single place that decides it.
   * @internal
   */
  static generate(init: APIErrorInit): APIError {
    const record = asRecord(init.body);
    const text = init.summary ?? failureSummary(record, init);
    // Redacted by the constructor, with the body and the headers.
    const message = `${text} (HTTP ${init.status}, ${init.request.method} ${new URL(init.request.url).pathname}). ${outcomeSentence(defaultOutcome(init), init.call ?? {})}`;
    // These three follow the status alone: a proxy's or a crashed handler's body says nothing
    // about the service's rules, and a 5xx must never read as a refusal.
    if (init.status === 404) return new NotFoundError(message, init);
    if (init.status === 429) return new RateLimitError(message, init);
    if (init.status >= 500 && init.status <= 599) return new InternalServerError(message, init);
    const reason = authReason(record);
    if (init.status === 403 || reason === 'provider_inactive' || reason === 'ip_not_allowed' || reason === 'credential_key_refused') {
      return new PermissionDeniedError(message, init);
    }
    if (init.status === 401 || reason !== undefined) {
      return new AuthenticationError(message, init);
    }
    if (stringList(record?.['messages']) !== undefined) {
      return new UnprocessableEntityError(message, init);
    }
    // Spec 7.4 shows no status for the other refusals: the body rules above decide first.
    if (init.status === 400) return new BadRequestError(message, init);
    if (init.status === 409) return new ConflictError(message, init);
    return new APIError(message, init);
  }
}

/** The service refused the credentials (HTTP 401, spec 7.1). */
export class AuthenticationError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'AuthenticationError';
  /**
   * Which refusal of spec 7.1, read from the body's text: `missing_headers`, `invalid_api_key`,
   * `timestamp_expired` (check the clock), `invalid_hash` (check the secret key), or `unknown`.
   */
  declare readonly reason: AuthFailureReason;
}

/**
 * The account may not do this: inactive provider or IP not whitelisted (HTTP 403, spec 7.1), or
 * a site credential key that does not belong to the provider (spec 7.3, whatever the status).
 */
export class PermissionDeniedError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'PermissionDeniedError';
  /**
   * Which refusal, read from the body's text: `provider_inactive`, `ip_not_allowed` (spec 7.1),
   * `credential_key_refused` (spec 7.3), or `unknown` for a 403 whose text the spec does not list.
   */
  declare readonly reason: AuthFailureReason;
}

/**
 * The service refused the request's fields: its body lists `messages`, one entry per failed rule
 * (spec 7.2), whatever the HTTP status (7.3 shows none; 422 is usual). Not to be confused with
 * `RequestValidationError`, payorch's own refusal before anything is sent.
 */
export class UnprocessableEntityError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'UnprocessableEntityError';
  /** The body's `messages` list (spec 7.2), one entry per failed rule: the SDK makes this class only for a body that has one. */
  declare readonly messages: readonly string[];
}

/**
 * HTTP 400 whose body is neither an authentication refusal (spec 7.1 texts) nor a validation
 * failure with `messages` (spec 7.2): the service refused the request as it was. `outcome` is
 * `refused`; `code` holds a dealer code (spec 7.4) when the body carries one.
 */
export class BadRequestError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'BadRequestError';
}

/**
 * HTTP 409, unless the body is an authentication refusal or lists `messages`: the service refused
 * the request because of the state of what it names (spec 7.4 shows no status; a duplicate
 * request is the usual cause). `outcome` is `refused`: this request moved nothing.
 */
export class ConflictError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'ConflictError';
}

/**
 * HTTP 404, whatever the body: usually a `baseUrl` with a path the SDK appends itself
 * (`…/api`), or a proxy that does not route the path. `outcome` is `refused`.
 */
export class NotFoundError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'NotFoundError';
}

/**
 * HTTP 429, whatever the body: the service asks for fewer calls. Resendable calls are retried
 * (honouring `Retry-After`); a payment-creating call never is (`outcome` is `refused`: a 429 is an
 * answer before any processing, but payorch does not bet money on every proxy agreeing).
 */
export class RateLimitError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'RateLimitError';
}

/**
 * Any HTTP 5xx, whatever the body (even `success: false`): the service or a gateway failed,
 * possibly after it acted, so `outcome` is `unknown` (docs/errors-and-retries.md).
 */
export class InternalServerError extends APIError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'InternalServerError';
}

function defaultOutcome(init: APIErrorInit): CallOutcome {
  return init.outcome ?? (init.status >= 400 && init.status <= 499 ? 'refused' : 'unknown');
}

// Texts of spec 7.1, matched loosely: the service may vary case or punctuation.
const AUTH_TEXTS: readonly (readonly [RegExp, AuthFailureReason])[] = [
  [/missing required headers/i, 'missing_headers'],
  [/invalid api key/i, 'invalid_api_key'],
  [/timestamp expired/i, 'timestamp_expired'],
  [/invalid hash/i, 'invalid_hash'],
  [/account is inactive/i, 'provider_inactive'],
  [/ip address not allowed/i, 'ip_not_allowed'],
  // Spec 7.3 shows no status for these: the manual withdrawal's Turkish text, the card payment's English one.
  [/yetkisiz credential key|invalid credential key/i, 'credential_key_refused'],
];

function authReason(record: Record<string, unknown> | undefined): AuthFailureReason | undefined {
  const texts = [stringField(record, 'error'), stringField(record, 'message')];
  for (const [pattern, reason] of AUTH_TEXTS) {
    if (texts.some((text) => text !== undefined && pattern.test(text))) return reason;
  }
  return undefined;
}

function failureSummary(record: Record<string, unknown> | undefined, init: APIErrorInit): string {
  if (init.status >= 300 && init.status <= 399) {
    // Never followed: it would send the request, payment body and all, wherever it points.
    const location = init.headers['location'];
    return `The service answered with a redirect${location === undefined || location === '' ? '' : ` to ${printable(withoutQuery(location))}`}, not followed (check baseUrl)`;
  }
  if (record === undefined) {
    if (typeof init.body === 'string' && init.body.length > 0) return 'The service answered with a body that is not JSON';
    // A JSON value that is not an object (an array, a number) still is an answer, not an empty one.
    return init.body === '' || init.body === undefined || init.body === null ? 'The service answered with an empty body' : 'The service reported a failure';
  }
  const error = stringField(record, 'error');
  const message = stringField(record, 'message');
  const messages = stringList(record['messages']);
  const parts = [error, message !== error ? message : undefined, messages?.join('; ')].filter((part) => part !== undefined && part !== '');
  // The service's words, escaped: a message reaches logs and terminals.
  return parts.length > 0 ? printable(parts.join(': ')) : 'The service reported a failure';
}

const CODE_SHAPE = /^[A-Z][A-Z0-9_]+$/;

function readCode(record: Record<string, unknown> | undefined): string | undefined {
  const explicit = stringField(record, 'code') ?? stringField(record, 'error_code');
  if (explicit !== undefined) return explicit;
  const error = stringField(record, 'error');
  return error !== undefined && CODE_SHAPE.test(error) ? error : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? value : undefined;
}

/**
 * The service answered with success, but the body does not have the shape the spec gives.
 * The parsed body and the raw text are kept so that nothing is lost.
 */
export class ResponseValidationError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'ResponseValidationError';
  /** HTTP status of the answer (a 2xx: the service reported success). */
  readonly status: number;
  /** Each field of the answer that does not fit the spec's shape, with the rule it breaks. */
  readonly issues: readonly ValidationIssue[];
  /** The parsed JSON body. */
  readonly body: unknown;
  /** The body as received, but for echoed secrets, shown as `[redacted]`. */
  readonly rawBody: string;
  /**
   * Made by the SDK when a success answer breaks its schema; keeps the body as received. `redact`
   * lists the values that must not appear anywhere in the error (the secret key, every hash sent,
   * a credential key, an X-Key).
   */
  constructor(operation: string, init: { status: number; issues: readonly ValidationIssue[]; body: unknown; rawBody: string; redact?: readonly string[] | undefined; outcome?: CallOutcome | undefined; resendable?: boolean | undefined }) {
    const forms = secretForms(init.redact ?? []);
    const issues = redactValue(init.issues, forms) as readonly ValidationIssue[];
    // A success answer payorch cannot read: the request may well have been processed.
    const outcome = init.outcome ?? 'unknown';
    const found = issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ');
    super(redactText(`Unexpected answer from ${operation}: ${found}. ${outcomeSentence(outcome, { operation, resendable: init.resendable })}`, forms), { outcome });
    this.status = init.status;
    this.issues = issues;
    this.body = redactValue(init.body, forms);
    this.rawBody = redactText(init.rawBody, forms);
  }
}

/**
 * The call, retries and body included, did not finish within `timeout` milliseconds. When an
 * attempt had gone on the wire (`outcome` is `unknown`), a payment-creating request may still
 * have been processed: do not send it again; wait for its callback (docs/errors-and-retries.md).
 */
export class TimeoutError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'TimeoutError';
  /** The limit that ran out, in milliseconds: the client's or the call's `timeout` option. */
  readonly timeout: number;
  /** The client method that timed out, its API first: `provider.manual.startDeposit`. */
  readonly operation: string;
  /** The method and the full URL of the request, query string included; never its headers, which carry the keys. */
  readonly request: { readonly method: string; readonly url: string };
  /** Made by the SDK when the call outlived `timeout` milliseconds. */
  constructor(timeout: number, call: FailedCall & { readonly outcome?: CallOutcome | undefined }) {
    const outcome = call.outcome ?? 'unknown';
    super(`${callLabel(call)} did not complete within ${timeout} ms. ${outcomeSentence(outcome, call)}`, { outcome });
    this.timeout = timeout;
    this.operation = call.operation;
    this.request = call.request;
  }
}

/**
 * The caller's `AbortSignal` stopped the call. `cause` holds the signal's reason; `outcome` says
 * which side of the wire it stopped on: `not_sent` when no attempt had been handed to `fetch`
 * (the service cannot have received it), `unknown` once one had, since `fetch` cannot tell
 * whether its bytes left.
 */
export class RequestAbortedError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'RequestAbortedError';
  /** The client method that was stopped, its API first: `provider.manual.startDeposit`. */
  readonly operation: string;
  /** The method and the full URL of the request, query string included; never its headers, which carry the keys. */
  readonly request: { readonly method: string; readonly url: string };
  /** Made by the SDK when the caller's signal fired; `cause` is the signal's reason. */
  constructor(cause: unknown, call: FailedCall & { readonly outcome?: CallOutcome | undefined }) {
    const outcome = call.outcome ?? 'unknown';
    const label = callLabel(call);
    super(`${label} was aborted${outcome === 'unknown' ? ' after it was handed to fetch' : ''}. ${outcomeSentence(outcome, call)}`, { cause, outcome });
    this.operation = call.operation;
    this.request = call.request;
  }
}

/**
 * `dealer.transfers.waitFor` reached its deadline before the transfer reached an end status.
 * The transfer goes on at the service: it may still complete, so money may have moved. Do not
 * send it again; read it later with `getStatus`, or let a scheduled sweep
 * (`applyTransferStatuses`) apply its end once.
 */
export class TransferWaitTimeoutError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'TransferWaitTimeoutError';
  /** The transfer waited for (`TRF-...`). */
  readonly transferId: string;
  /** The deadline that ran out, in milliseconds: the `timeout` option. */
  readonly timeout: number;
  /** The status of the last answer read (`pending`, or one the SDK does not know), or undefined when no read answered in time. */
  readonly lastStatus: string | undefined;
  /** Made by `dealer.transfers.waitFor` at its deadline. */
  constructor(transferId: string, timeout: number, lastStatus: string | undefined) {
    super(
      `Transfer ${transferId} did not reach an end status within ${timeout} ms (last status read: ${lastStatus ?? 'none'}); it may still complete, so money may have moved: do not send it again, read its status later`,
      { outcome: 'unknown' },
    );
    this.transferId = transferId;
    this.timeout = timeout;
    this.lastStatus = lastStatus;
  }
}

/** Where a redirect points, without its query: a message reaches logs, and the query may hold ids (as callLabel leaves the call's out). */
function withoutQuery(location: string): string {
  return location.split(/[?#]/)[0] ?? location;
}
