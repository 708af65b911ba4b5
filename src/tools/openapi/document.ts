import * as z from 'zod/mini';
import { CreditCardCallback, DealerCreditCardCallback, DepositCallback, WithdrawalCallback } from 'payorch/schemas';
import type { CallbackKind, DealerErrorCode } from 'payorch';
import { assertNever } from '../../internal/assert-never.js';
import { API_ENDPOINTS, endpointPath, wireTypes } from '../cli-internals.js';
import type { ApiEndpoint } from '../registry/index.js';
import { SPEC_GAPS } from './notes.js';

/*
 * An OpenAPI 3.1 description of the service as the spec defines it, generated from payorch's
 * endpoint table and zod schemas: requests as payorch sends them (strict, additionalProperties
 * false), answers and callbacks with the spec's types. payorch's lenient building blocks carry
 * their spec type in the `wireTypes` map (src/internal/schema-blocks.ts); the generator shows that type
 * instead of the union payorch parses, and says in the description what payorch tolerates besides,
 * so that types generated from the document are right for a server or another client.
 * Loaded only by the CLI's `openapi` command and the tests; the main entry never imports it.
 */

type JsonSchema = Record<string, unknown>;

/**
 * An `openEnum` (a `z.custom` string carrying its known values as `options`) as a string with
 * those values as examples: the set is open, so `enum` would be wrong. Nothing else payorch
 * writes is unrepresentable; anything that is fails the generation instead of becoming `{}`.
 */
const openEnumSchema: z.core.UnrepresentableHandler = ({ zodSchema }) => {
  const options: unknown = (zodSchema as { options?: unknown }).options;
  if (zodSchema._zod.def.type !== 'custom' || !Array.isArray(options)) return 'throw';
  return { type: 'string', examples: [...(options as unknown[])], description: `Known values: ${options.join(', ')}; the service may add others.` };
};

/** A schema of the document, and what payorch tolerates beyond it (for the description). */
export interface Converted {
  readonly schema: JsonSchema;
  readonly tolerates: ReadonlySet<string>;
}

/** Whether the spec always sends a field that payorch's schema lets be absent (`success`). */
function specRequired(field: z.core.$ZodType): boolean {
  for (let node: z.core.$ZodType = field; ; node = node._zod.def.innerType) {
    if (wireTypes.get(node)?.required === true) return true;
    if (!(node instanceof z.core.$ZodOptional || node instanceof z.core.$ZodNullable)) return false;
  }
}

/**
 * A zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12, zod's default target), with
 * the spec's type wherever a building block registered one in `wireTypes`, and the set of
 * tolerances met on the way. `io: 'input'` so that a request shows what is sent.
 */
function convert(schema: z.core.$ZodType, tolerates: Set<string>): JsonSchema {
  const override: NonNullable<z.core.ToJSONSchemaParams['override']> = ({ zodSchema, jsonSchema }) => {
    if (zodSchema instanceof z.core.$ZodObject && jsonSchema.properties !== undefined) {
      const required = new Set(jsonSchema.required);
      const shape: Readonly<Record<string, z.core.$ZodType>> = zodSchema._zod.def.shape;
      // Rebuilt in the shape's order, as zod writes it.
      const all = Object.keys(jsonSchema.properties).filter((key) => {
        const field = shape[key];
        return required.has(key) || (field !== undefined && specRequired(field));
      });
      if (all.length > 0) jsonSchema.required = all;
    }
    const wire = wireTypes.get(zodSchema);
    if (wire === undefined) return;
    tolerates.add(wire.tolerates);
    if (wire.spec === undefined && !(zodSchema instanceof z.core.$ZodNullable)) return;
    // The union or literal set payorch parses gives way to the spec's type; annotations stay.
    delete jsonSchema.anyOf;
    delete jsonSchema.allOf;
    delete jsonSchema.enum;
    delete jsonSchema.const;
    delete jsonSchema.type;
    delete jsonSchema.$ref;
    if (wire.spec !== undefined) {
      Object.assign(jsonSchema, wire.spec);
      return;
    }
    // An optional answer field may come as `null` (a PHP service's unset column, the sandbox's
    // pending transfer), so the null branch stays: a validating proxy or a generated client
    // must accept what the service sends. A field the spec always sends (`success`) keeps its
    // type alone. The inner schema is converted afresh: zod may not have finished its own copy yet.
    const inner = (zodSchema as z.core.$ZodNullable)._zod.def.innerType;
    const shown = convert(inner, tolerates);
    Object.assign(jsonSchema, specRequired(inner) ? shown : orNull(shown));
  };
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: openEnumSchema, override }) as JsonSchema;
  // The dialect is the document's (OpenAPI 3.1's default), not repeated in every schema.
  delete generated['$schema'];
  return generated;
}

/** `schema` or `null`: one type list where the schema has a single type, else a union. */
function orNull(schema: JsonSchema): JsonSchema {
  const type = schema['type'];
  if (typeof type === 'string' && schema['enum'] === undefined && schema['const'] === undefined) return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** An answer's or a request's schema as the document shows it. Exported for the tests. @internal */
export function schemaOf(schema: z.core.$ZodType): Converted {
  const tolerates = new Set<string>();
  return { schema: convert(schema, tolerates), tolerates };
}

/** What payorch accepts beyond the spec's schema of an answer or callback, in prose. */
function lenience({ tolerates }: Converted): string {
  const also = ['fields the spec does not list (kept at run time)', ...tolerates];
  return `The schema is the spec's. payorch also accepts, and normalises to it: ${also.join('; ')}.`;
}

const HASH_RULE =
  'SHA-256, as lowercase hexadecimal, of the plain concatenation (no separator) of api_key, secret_key, ' +
  'then the extra key of the hash if any (X-Key for the key hash, X-Credential-Key for the credential hash), then X-Timestamp (spec 5.1). ' +
  'The secret key itself is never sent.';

const SECURITY_SCHEMES = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The account\'s API key (provider or dealer).' },
  Hash: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Hash',
    description: `${HASH_RULE} basic: api_key + secret_key + timestamp; key: api_key + secret_key + X-Key + timestamp; credential: api_key + secret_key + X-Credential-Key + timestamp. Recomputed for every attempt.`,
  },
  Timestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Unix time in seconds; the service refuses one more than 5 minutes from its own time (spec 5.1, 7.1).' },
  Key: { type: 'apiKey', in: 'header', name: 'X-Key', description: 'The additional verification key of the key hash (list sites, spec 4.4).' },
  CredentialKey: { type: 'apiKey', in: 'header', name: 'X-Credential-Key', description: 'The site credential key of the credential hash; it must belong to the calling provider (spec 5.1 rule 3).' },
  // What the service sends with a callback (spec 5.3, 6.1): the same X-Api-Key, a hash over other values.
  CallbackHash: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Hash',
    description: 'Of a callback (spec 5.3): SHA-256, as lowercase hexadecimal, of api_key + secret_key + tracking_code + status + timestamp, with the keys of the account the callback is for; the body\'s `hash` repeats it. A receiver answers a mismatch with 401.',
  },
  CallbackTimestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Of a callback (spec 5.3): Unix time in seconds, the value the hash covers; the body\'s `timestamp` repeats it.' },
} as const;

function security(hash: ApiEndpoint['endpoint']['hash']): Record<string, []>[] {
  const base = { ApiKey: [], Hash: [], Timestamp: [] } as Record<string, []>;
  if (hash === 'key') base['Key'] = [];
  if (hash === 'credential') base['CredentialKey'] = [];
  return [base];
}

const failure = { const: false, description: 'Always false on an error (spec 7.2).' };

/*
 * The three body shapes of spec 7.2, and the 7.1 refusals. They overlap (an error body with
 * `message` is also a card error body), so the responses offer them with `anyOf`, not `oneOf`.
 */
const ERROR_SCHEMAS = {
  ErrorBody: {
    type: 'object',
    description:
      'An error (spec 7.2), for example `{"success": false, "error": "Yetkisiz Credential Key", "message": "..."}` (7.3). A dealer error carries a code of spec 7.4 (DATE_RANGE_EXCEEDED, WALLET_NOT_ASSIGNED, ...); which field carries it is not shown: payorch reads `code`, `error_code` or a code-shaped `error`.',
    properties: { success: failure, error: { type: 'string' }, message: { type: 'string' } },
    required: ['success', 'error', 'message'],
  },
  ValidationErrorBody: {
    type: 'object',
    description: 'A validation error (spec 7.2): `error` is for example "Doğrulama hatası" (7.3), with one message per failed rule.',
    properties: { success: failure, error: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } } },
    required: ['success', 'error', 'messages'],
  },
  CardErrorBody: {
    type: 'object',
    description: 'A card payment error (spec 7.2, 7.3), for example `{"success": false, "message": "Invalid credential key"}`.',
    properties: { success: failure, message: { type: 'string' } },
    required: ['success', 'message'],
  },
  AuthErrorBody: {
    type: 'object',
    description: 'An authentication refusal of the Provider API (spec 7.1): the error text names the reason. Whether a `message` accompanies it is not shown.',
    properties: {
      success: failure,
      error: {
        type: 'string',
        examples: ['Missing required headers', 'Invalid API key', 'Request timestamp expired', 'Invalid hash', 'Provider account is inactive', 'IP address not allowed'],
      },
      message: { type: 'string' },
    },
    required: ['success', 'error'],
  },
} as const;

const json = (schema: unknown, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });
const ref = (name: keyof typeof ERROR_SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });

const OTHER_FAILURE = {
  description:
    'Any other failure (spec 7.2 to 7.4), in one of the three body shapes of 7.2. Its HTTP status is not shown in the spec (7.4); payorch treats every non-2xx answer and every `success: false` body as a failure.',
  content: json({ anyOf: [ref('ErrorBody'), ref('ValidationErrorBody'), ref('CardErrorBody')] }),
};

const OTHER_REFUSAL = {
  description:
    'A refused request (spec 7.2, 7.3): a validation error, an unknown record, a refused card payment. The spec shows no status for it (7.4): any 4xx, in one of the three body shapes of 7.2.',
  content: json({ anyOf: [ref('ErrorBody'), ref('ValidationErrorBody'), ref('CardErrorBody')] }),
};

/** The codes of spec 7.4 and their conditions, in the spec's order. */
const DEALER_CODES = {
  DATE_RANGE_EXCEEDED: 'range longer than 3 days',
  INVALID_DATE_RANGE: 'end date before start date',
  WALLET_NOT_ASSIGNED: 'wallet not assigned to the dealer',
  INSUFFICIENT_BALANCE: 'source E-IBAN balance too low',
  INVALID_IBAN: 'recipient IBAN invalid',
  MIN_AMOUNT_ERROR: 'amount below 10.00',
} as const satisfies Partial<Record<DealerErrorCode, string>>;
type DealerCode = keyof typeof DEALER_CODES;

/** The dealer refusal of one operation, naming its 7.4 codes (the row's) where it has any. */
function dealerRefusal(codes: readonly DealerCode[]): Record<string, unknown> {
  const codeNote = codes.length === 0 ? '' : ` This operation's codes (spec 7.4): ${codes.map((code) => `${code} (${DEALER_CODES[code]})`).join('; ')}.`;
  const body =
    codes.length === 0
      ? []
      : [
          {
            type: 'object',
            description: `A refusal with a code of spec 7.4.${codeNote} Which field carries the code is not shown: payorch reads \`code\`, \`error_code\` or a code-shaped \`error\`.`,
            properties: { success: failure, error: { type: 'string', examples: [...codes] }, code: { type: 'string', examples: [...codes] }, error_code: { type: 'string', examples: [...codes] }, message: { type: 'string' } },
            required: ['success'],
          },
        ];
  return {
    description: `${OTHER_REFUSAL.description} Responses to failed dealer authentication are not shown either (7.4); payorch reads one with a 7.1 error text as that refusal.${codeNote}`,
    content: json({ anyOf: [...body, ref('ErrorBody'), ref('ValidationErrorBody'), ref('CardErrorBody')] }),
  };
}

/**
 * Section 7 per API: the Provider API's authentication refusals (7.1, with the IP whitelist of
 * 5.1 rule 4) and the card refusals of 7.3; the Dealer API shows none (its failed
 * authentication is "not shown", 7.4; 5.2 has no whitelist), so a dealer operation lists a 4XX
 * with its 7.4 codes. Every operation declares a 4XX (its status is not shown) and a default.
 */
function errorResponses(row: ApiEndpoint): Record<string, unknown> {
  switch (row.api) {
    case 'provider':
      return {
        '401': { description: 'Refused credentials (spec 7.1): missing headers, unknown API key, expired timestamp, wrong hash.', content: json(ref('AuthErrorBody')) },
        '403': {
          description: 'Inactive provider account or IP address not whitelisted (spec 7.1, 5.1 rule 4); a site credential key of another provider, or a refused card payment (7.3).',
          content: json({ anyOf: [ref('AuthErrorBody'), ref('CardErrorBody')] }),
        },
        '4XX': OTHER_REFUSAL,
        default: OTHER_FAILURE,
      };
    case 'dealer':
      return { '4XX': dealerRefusal(row.codes.filter((code): code is DealerCode => Object.hasOwn(DEALER_CODES, code))), default: OTHER_FAILURE };
    default:
      return assertNever(row.api);
  }
}

function description(row: ApiEndpoint): string {
  const retry = row.endpoint.resendable ? 'Resendable (receiving it twice cannot move money twice): payorch retries it after transient failures.' : 'Moves money: payorch never sends it twice unless the service cannot have received the first attempt.';
  return [`payorch: \`${row.api === 'provider' ? 'ProviderClient' : 'DealerClient'}.${row.endpoint.operation}\`. Signed with the ${row.endpoint.hash} hash. ${retry}`, ...row.gaps.map(({ spec, gap, assumes, override }) => `Not shown in the spec (${spec}): ${gap}. payorch assumes: ${assumes} Override: ${override}`)].join('\n\n');
}

function queryParameters(schema: JsonSchema, example: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property, ...(example[name] === undefined ? {} : { example: example[name] }) }));
}

/**
 * The row's example request as it goes on the wire: the client method's parameters, with the
 * site credential key a card payment's client fills (spec 5.1 rule 2) written as a placeholder.
 */
function wireExample(row: ApiEndpoint, schema: JsonSchema): Readonly<Record<string, unknown>> {
  const params = (row.example.params ?? {}) as Readonly<Record<string, unknown>>;
  const required = (schema['required'] ?? []) as string[];
  return required.includes('credential_key') && params['credential_key'] === undefined ? { credential_key: 'your-site-credential-key', ...params } : params;
}

function operation(row: ApiEndpoint): Record<string, unknown> {
  const { endpoint } = row;
  // NoParams (z.undefined()) has no body and no query.
  const takesParams = !endpoint.params.safeParse(undefined).success;
  const params = takesParams ? schemaOf(endpoint.params).schema : undefined;
  const answer = schemaOf(endpoint.response);
  return {
    operationId: `${row.api}.${endpoint.operation}`,
    summary: endpoint.operation,
    description: description(row),
    tags: [row.api],
    security: security(endpoint.hash),
    ...(params !== undefined && endpoint.method === 'GET' ? { parameters: queryParameters(params, wireExample(row, params)) } : {}),
    ...(params !== undefined && endpoint.method === 'POST' ? { requestBody: { required: true, content: json(params, wireExample(row, params)) } } : {}),
    responses: { '200': { description: `Success (\`success: true\`). ${lenience(answer)}`, content: json(answer.schema, row.example.answer) }, ...errorResponses(row) },
  };
}

const CALLBACKS: Readonly<Record<CallbackKind, { schema: z.ZodMiniType; section: string; url: string; signer: string }>> = {
  deposit: { schema: DepositCallback, section: '6.2', url: 'callback_url (deposit_callback_url for E-IBAN)', signer: 'provider' },
  withdrawal: { schema: WithdrawalCallback, section: '6.3', url: 'withdrawal_callback_url', signer: 'provider' },
  creditCard: { schema: CreditCardCallback, section: '6.4', url: 'credit_card_callback_url', signer: 'provider' },
  dealerCreditCard: { schema: DealerCreditCardCallback, section: '6.5', url: "the dealer's card callback URL", signer: 'dealer' },
};

function webhook(kind: CallbackKind): Record<string, unknown> {
  const { schema, section, url, signer } = CALLBACKS[kind];
  const body = schemaOf(schema);
  return {
    post: {
      operationId: `callback.${kind}`,
      summary: `${kind} callback (spec ${section})`,
      description: `POSTed to ${url} when the record reaches an end status. Signed with the ${signer}'s keys: X-Api-Key is the ${signer}'s API key, X-Hash = SHA-256(api_key + secret_key + tracking_code + status + timestamp), lowercase hex; the body's hash and timestamp repeat X-Hash and X-Timestamp (spec 5.3). Verify with payorch's verifyCallback.`,
      security: [{ ApiKey: [], CallbackHash: [], CallbackTimestamp: [] }],
      requestBody: { required: true, description: lenience(body), content: json(body.schema) },
      responses: {
        '200': { description: 'Applied (or already applied). `{"success": true}` is the shown reply (spec 6.1); any other status counts as a failed delivery.', content: json({ type: 'object', properties: { success: { const: true } } }) },
        '401': { description: 'The hash does not match (spec 5.3).' },
      },
    },
  };
}

/** Settings of {@link openApiDocument}. */
export interface OpenApiOptions {
  /** The version of payorch the document was generated by, shown in `info`. */
  readonly version: string;
}

/** The OpenAPI 3.1 document of both APIs and the four callbacks. */
export function openApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const row of API_ENDPOINTS) {
    paths[endpointPath(row)] = { [row.endpoint.method.toLowerCase()]: operation(row) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Orchestration Service',
      version: options.version,
      summary: 'Provider API and Dealer API, and the callbacks, as the spec defines them.',
      description: [
        'Generated by payorch from its endpoint table and zod schemas (`payorch openapi`). The service publishes no machine-readable description; this one describes it as the spec defines it: requests as payorch sends them (strict), answers and callbacks with the spec\'s types (open to fields the spec does not list). An optional field of an answer or callback may be `null` (the service sends it for a value it does not have yet, such as a pending transfer\'s `completed_at`), and the schemas say so; payorch reads it as absent. What else payorch tolerates beyond the spec (numbers as numeric strings, unknown fields kept, ...) is said in prose in each answer\'s and callback\'s description, not in the schemas.',
        `Every request carries X-Api-Key, X-Timestamp and X-Hash. ${HASH_RULE}`,
        'Choices payorch makes where the spec says "not shown" are noted on each operation and listed below (docs/spec-gaps.md has the full table).',
        ...SPEC_GAPS.map((gap) => `- ${gap}`),
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '{baseUrl}', description: 'The service; paths are below it (most below /api/provider or /api/dealer).', variables: { baseUrl: { default: 'https://pay.example.com' } } }],
    tags: [
      { name: 'provider', description: 'Provider API (spec 4.2 to 4.12).' },
      { name: 'dealer', description: 'Dealer API (spec 4.13); every request uses the basic hash (spec 5.2).' },
    ],
    paths,
    webhooks: Object.fromEntries((Object.keys(CALLBACKS) as CallbackKind[]).map((kind) => [kind, webhook(kind)])),
    components: { securitySchemes: SECURITY_SCHEMES, schemas: ERROR_SCHEMAS },
  };
}
