import * as z from 'zod/mini';
import { CreditCardCallback, DealerCreditCardCallback, DepositCallback, WithdrawalCallback } from '../callbacks/schemas.js';
import type { CallbackKind } from '../callbacks/kinds.js';
import { API_ENDPOINTS, fullPath } from '../endpoints.js';
import type { ApiEndpoint } from '../endpoints.js';
import { NOT_SHOWN, SPEC_GAPS } from './notes.js';

/*
 * An OpenAPI 3.1 description of the service, generated from payorch's endpoint table and zod
 * schemas, so that it says exactly what the SDK sends and accepts: requests strict
 * (additionalProperties false), answers and callbacks open, both as they travel on the wire
 * (zod's `io: 'input'`: an answer's numeric string is shown as accepted, not as converted).
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

/**
 * A zod schema as an OpenAPI 3.1 schema object. OpenAPI 3.1's default dialect is JSON Schema
 * 2020-12, zod's default target.
 */
function schemaOf(schema: z.ZodMiniType): JsonSchema {
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: openEnumSchema }) as JsonSchema;
  // The dialect is the document's (OpenAPI 3.1's default), not repeated in every schema.
  delete generated['$schema'];
  return generated;
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
} as const;

function security(hash: ApiEndpoint['endpoint']['hash']): Record<string, []>[] {
  const base = { ApiKey: [], Hash: [], Timestamp: [] } as Record<string, []>;
  if (hash === 'key') base['Key'] = [];
  if (hash === 'credential') base['CredentialKey'] = [];
  return [base];
}

const ERROR_SCHEMAS = {
  ErrorBody: {
    type: 'object',
    description: 'An error (spec 7.2). Dealer errors carry a code of spec 7.4 (DATE_RANGE_EXCEEDED, ...); where it is carried is not shown: payorch reads `code`, `error_code` or a code-shaped `error`.',
    properties: { success: { const: false }, error: { type: 'string' }, message: { type: 'string' } },
    required: ['success'],
  },
  ValidationErrorBody: {
    type: 'object',
    description: 'A validation error (spec 7.2): one message per failed rule.',
    properties: { success: { const: false }, error: { type: 'string' }, messages: { type: 'array', items: { type: 'string' } } },
    required: ['success', 'messages'],
  },
  CardErrorBody: {
    type: 'object',
    description: 'A card payment error (spec 7.2, 7.3).',
    properties: { success: { const: false }, message: { type: 'string' } },
    required: ['success', 'message'],
  },
  AuthErrorBody: {
    type: 'object',
    description: 'An authentication refusal (spec 7.1).',
    properties: {
      success: { const: false },
      error: {
        type: 'string',
        examples: ['Missing required headers', 'Invalid API key', 'Request timestamp expired', 'Invalid hash', 'Provider account is inactive', 'IP address not allowed'],
      },
      message: { type: 'string' },
    },
    required: ['success'],
  },
} as const;

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: keyof typeof ERROR_SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });

const ERROR_RESPONSES = {
  '401': { description: 'Refused credentials (spec 7.1): missing headers, unknown API key, expired timestamp, wrong hash.', content: json(ref('AuthErrorBody')) },
  '403': { description: 'Inactive provider account or IP address not whitelisted (spec 7.1).', content: json(ref('AuthErrorBody')) },
  default: {
    description: 'Any other failure. Its HTTP status is not shown in the spec (7.4); payorch treats every non-2xx answer and every `success: false` body as a failure.',
    content: json({ oneOf: [ref('ErrorBody'), ref('ValidationErrorBody'), ref('CardErrorBody')] }),
  },
};

function description(row: ApiEndpoint): string {
  const notes = NOT_SHOWN[`${row.api}.${row.endpoint.operation}`] ?? [];
  const retry = row.endpoint.readOnly ? 'Read-only: payorch retries it after transient failures.' : 'Moves money: payorch never sends it twice unless the service cannot have received the first attempt.';
  return [`payorch: \`${row.api === 'provider' ? 'ProviderClient' : 'DealerClient'}.${row.endpoint.operation}\`. Signed with the ${row.endpoint.hash} hash. ${retry}`, ...notes.map((note) => `Not shown in the spec: ${note}`)].join('\n\n');
}

function queryParameters(schema: JsonSchema): Record<string, unknown>[] {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property }));
}

function operation(row: ApiEndpoint): Record<string, unknown> {
  const { endpoint } = row;
  // NoParams (z.undefined()) has no body and no query.
  const takesParams = !endpoint.params.safeParse(undefined).success;
  const params = takesParams ? schemaOf(endpoint.params) : undefined;
  return {
    operationId: `${row.api}.${endpoint.operation}`,
    summary: endpoint.operation,
    description: description(row),
    tags: [row.api],
    security: security(endpoint.hash),
    ...(params !== undefined && endpoint.method === 'GET' ? { parameters: queryParameters(params) } : {}),
    ...(params !== undefined && endpoint.method === 'POST' ? { requestBody: { required: true, content: json(params) } } : {}),
    responses: { '200': { description: 'Success (`success: true`).', content: json(schemaOf(endpoint.response)) }, ...ERROR_RESPONSES },
  };
}

const CALLBACKS: Readonly<Record<CallbackKind, { schema: z.ZodMiniType; section: string; url: string; signer: string }>> = {
  deposit: { schema: DepositCallback, section: '6.2', url: 'callback_url (deposit_callback_url for E-IBAN)', signer: 'provider' },
  withdrawal: { schema: WithdrawalCallback, section: '6.3', url: 'withdrawal_callback_url', signer: 'provider' },
  creditCard: { schema: CreditCardCallback, section: '6.4', url: 'credit_card_callback_url', signer: 'provider' },
  dealerCreditCard: { schema: DealerCreditCardCallback, section: '6.5', url: "the dealer's card callback URL", signer: 'dealer' },
};

const header = (name: string, text: string) => ({ name, in: 'header', required: true, schema: { type: 'string' }, description: text });

function webhook(kind: CallbackKind): Record<string, unknown> {
  const { schema, section, url, signer } = CALLBACKS[kind];
  const body = schemaOf(schema);
  return {
    post: {
      operationId: `callback.${kind}`,
      summary: `${kind} callback (spec ${section})`,
      description: `POSTed to ${url} when the record reaches an end status. Signed with the ${signer}'s keys: X-Hash = SHA-256(api_key + secret_key + tracking_code + status + timestamp), lowercase hex; the body's hash and timestamp repeat X-Hash and X-Timestamp (spec 5.3). Verify with payorch's verifyCallback.`,
      parameters: [
        header('X-Api-Key', `The ${signer}'s API key.`),
        header('X-Timestamp', 'Unix seconds; the same value as the body\'s timestamp.'),
        header('X-Hash', 'SHA-256(api_key + secret_key + tracking_code + status + timestamp), lowercase hex.'),
      ],
      requestBody: { required: true, content: json(body) },
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
    paths[fullPath(row)] = { [row.endpoint.method.toLowerCase()]: operation(row) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Orchestration Service',
      version: options.version,
      summary: 'Provider API and Dealer API, as the payorch SDK sends and reads them.',
      description: [
        'Generated by payorch from its endpoint table and zod schemas (`payorch openapi`). The service publishes no machine-readable description; this one says what payorch sends (requests strict) and what it accepts (answers and callbacks open: unknown fields kept, numbers also as numeric strings).',
        `Every request carries X-Api-Key, X-Timestamp and X-Hash. ${HASH_RULE}`,
        'Choices payorch makes where the spec says "not shown" are noted on each operation and listed below (docs/spec-gaps.md has the full table).',
        ...SPEC_GAPS.map((gap) => `- ${gap}`),
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '{baseUrl}', description: 'The service; paths carry /api/provider or /api/dealer.', variables: { baseUrl: { default: 'https://pay.example.com' } } }],
    tags: [
      { name: 'provider', description: 'Provider API (spec 4.2 to 4.12).' },
      { name: 'dealer', description: 'Dealer API (spec 4.13); every request uses the basic hash (spec 5.2).' },
    ],
    paths,
    webhooks: Object.fromEntries((Object.keys(CALLBACKS) as CallbackKind[]).map((kind) => [kind, webhook(kind)])),
    components: { securitySchemes: SECURITY_SCHEMES, schemas: ERROR_SCHEMAS },
  };
}
