import * as z from 'zod/mini';
// zod's builder, not `z.iso.datetime`: reading the `iso` namespace keeps all of it in every bundle of the shared chunk.
import { _isoDateTime } from 'zod/v4/core';
import { CALLBACK_KINDS } from '../../webhooks/kinds.js';
import type { CallbackKind } from '../../webhooks/kinds.js';
import { errorFailure, success, validationFailure } from './answers.js';
import type { Reply } from './answers.js';
import { accountsOf } from './fixtures.js';
import { mediaType } from './guard.js';
import { CLOCK_RANGE } from './limits.js';
import { issueMessages, validate } from './params.js';
import { CONTROL_PREFIX } from './route.js';
import { RequestValidationError } from '../../errors/error.js';
import { SandboxError } from './sandbox-error.js';
import type { SandboxErrorCode } from './sandbox-error.js';
import { snapshot } from './service.js';
import type { Service } from './service.js';

/*
 * The sandbox's controls over HTTP, under /__sandbox, for the CLI and for tests in another
 * process. They carry no signature, so they answer loopback callers only, addressed by a name of
 * the sandbox's own (guard.ts), and take JSON bodies only. Every input is bounded.
 */

const MAX_CLOCK_SECONDS = (CLOCK_RANGE.max - CLOCK_RANGE.min) / 1000;

// The control's own fields; the rest are settle()'s options, checked by settle() itself (service.ts).
const SettleBody = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  status: z.string().check(z.minLength(1), z.maxLength(40)),
});

const ClockBody = z.union([
  z.strictObject({ advanceSeconds: z.number().check(z.minimum(0, 'advanceSeconds must be at least 0: use {"set"} to move the clock back'), z.maximum(MAX_CLOCK_SECONDS)) }),
  z.strictObject({ set: _isoDateTime(z.ZodMiniISODateTime, { offset: true }).check(z.refine((text) => Date.parse(text) >= CLOCK_RANGE.min && Date.parse(text) <= CLOCK_RANGE.max, 'set must be from 1970-01-01 to 9999-12-31')) }),
]);

const callbackUrl = z.optional(z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).check(z.maxLength(2000)));
const CallbackUrlsBody = z.strictObject(Object.fromEntries(CALLBACK_KINDS.map((kind) => [kind, callbackUrl])) as Record<CallbackKind, typeof callbackUrl>);

// redeliver()'s options, checked by redeliver() itself.
const RedeliverBody = z.record(z.string(), z.unknown());

// The window's range is checked by rotateKeys itself, and refused as every option is (422).
const RotateKeysBody = z.strictObject({ account: z.enum(['provider', 'dealer']), windowSeconds: z.number(), keepApiKey: z.optional(z.boolean()) });

/** The control endpoints, as the index lists them: method, path, body fields, what it does (docs/sandbox.md lists each). */
export const ENDPOINTS = [
  'GET  /__sandbox/accounts            the credentials of the provider and the dealer',
  'GET  /__sandbox/records             every record, oldest first',
  'GET  /__sandbox/records/{id}        one record by tracking code or transfer id',
  'POST /__sandbox/settle              {"id", "status", "amount"?, "resign"?, "failDeliveries"?, "also"?}: move a record to an end status and deliver its callback (failDeliveries: every attempt fails, as to an endpoint that is down; also: other end statuses of it at the same moment)',
  'GET  /__sandbox/deliveries          every callback attempt still logged',
  'POST /__sandbox/deliveries/{id}/redeliver  {"resign"?}: deliver a callback again, signed afresh or with its original signature',
  'GET  /__sandbox/clock               the record clock',
  'POST /__sandbox/clock               {"advanceSeconds"} or {"set": ISO 8601}: move the record clock, expiring what runs out',
  `PUT  /__sandbox/callback-urls       {${CALLBACK_KINDS.map((kind) => `"${kind}"?`).join(', ')}}: where callbacks go`,
  'POST /__sandbox/rotate-keys         {"account", "windowSeconds", "keepApiKey"?}: new keys for the provider or the dealer; the ones before stay valid for windowSeconds',
];

/** The HTTP status of each refusal, for the controls and the payment page. */
export const STATUS_OF: Readonly<Record<SandboxErrorCode, number>> = { unknown_record: 404, unknown_delivery: 404, refused_move: 409, invalid_amount: 422 };

export async function control(service: Service, request: Request, url: URL): Promise<Reply<unknown>> {
  const path = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/+$/, '');
  const route = `${request.method} ${path}`;
  // A form or a no-cors fetch from any web page can send these without asking; JSON it cannot.
  if (request.method !== 'GET' && request.method !== 'HEAD' && mediaType(request) !== 'application/json') {
    return errorFailure(415, 'Unsupported Media Type', `The sandbox controls take Content-Type: application/json bodies only (send {} when there is nothing to say), not ${JSON.stringify(request.headers.get('content-type') ?? 'none')}`);
  }
  const recordId = /^GET \/records\/([^/]+)$/.exec(route)?.[1];
  const redeliverId = /^POST \/deliveries\/([^/]+)\/redeliver$/.exec(route)?.[1];
  try {
    if (recordId !== undefined) {
      const record = service.records.get(decodePath(recordId));
      return record === undefined ? errorFailure(404, 'Not Found', `No record has the id ${recordId}`) : success({ success: true, record: snapshot(record) });
    }
    if (redeliverId !== undefined) {
      const body = await parseBody(request, RedeliverBody);
      if (!body.ok) return body.failure;
      return success({ success: true, delivery: await service.redeliver(decodePath(redeliverId), body.value) });
    }
    switch (route) {
      case 'GET ':
        return success({ success: true, accounts: accountsOf(service.fixtures), endpoints: ENDPOINTS });
      case 'GET /accounts':
        return success({ success: true, accounts: accountsOf(service.fixtures) });
      case 'GET /records':
        return success({ success: true, records: service.records.list().map(snapshot) });
      case 'POST /settle': {
        const body = await parseBody(request, SettleBody);
        if (!body.ok) return body.failure;
        const { id, status, ...options } = body.value;
        const settled = await service.settle(id, status, options);
        // A script that expected a callback learns here why none went out.
        const reason = settled.callback === undefined ? service.noCallbackReason(settled.record) : undefined;
        return success({ success: true, ...settled, ...(reason === undefined ? {} : { note: `No callback was delivered: ${reason}.` }) });
      }
      case 'GET /deliveries':
        return success({ success: true, deliveries: service.deliverer.attempts() });
      case 'GET /clock':
        return success({ success: true, now: new Date(service.clock.now()).toISOString() });
      case 'POST /clock': {
        const body = await parseBody(request, ClockBody);
        if (!body.ok) return body.failure;
        const expired = 'set' in body.value ? await service.setClock(Date.parse(body.value.set)) : await service.advanceClock(body.value.advanceSeconds * 1000);
        return success({ success: true, now: new Date(service.clock.now()).toISOString(), expired });
      }
      case 'POST /rotate-keys': {
        const body = await parseBody(request, RotateKeysBody);
        if (!body.ok) return body.failure;
        const { account, ...options } = body.value;
        return success({ success: true, ...service.rotateKeys(account, options) });
      }
      case 'PUT /callback-urls': {
        const body = await parseBody(request, CallbackUrlsBody);
        if (!body.ok) return body.failure;
        service.callbackUrls = body.value;
        return success({ success: true, callbackUrls: service.callbackUrls });
      }
      default:
        return errorFailure(404, 'Not Found', `No sandbox control at ${route}; GET ${CONTROL_PREFIX} lists them`);
    }
  } catch (error) {
    if (error instanceof SandboxError) return errorFailure(STATUS_OF[error.code], error.code, error.message);
    // A value out of range (a clock move past 9999-12-31), refused as every option is.
    if (error instanceof RequestValidationError) return errorFailure(422, 'invalid_option', error.message);
    throw error;
  }
}

async function parseBody<S extends z.ZodMiniType>(request: Request, schema: S): Promise<{ ok: true; value: z.output<S> } | { ok: false; failure: Reply<never> }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await request.text()) as unknown;
  } catch {
    return { ok: false, failure: errorFailure(400, 'Invalid JSON', 'The request body is not valid JSON') };
  }
  const parsed = validate(schema, raw);
  return parsed.ok ? parsed : { ok: false, failure: validationFailure(issueMessages(parsed.issues)) };
}

/** A path segment decoded, or as sent when it is not valid percent-encoding (then nothing has that id). */
export function decodePath(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export const isLoopbackAddress = (address: string): boolean => /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/i.test(address);
