import * as z from 'zod';
import { CALLBACK_KINDS } from '../callbacks/kinds.js';
import type { CallbackKind } from '../callbacks/kinds.js';
import { errorFailure, success, validationFailure } from './answers.js';
import type { Reply } from './answers.js';
import { accountsOf } from './fixtures.js';
import { issueMessages, validate } from './params.js';
import { CONTROL_PREFIX } from './route.js';
import { SandboxError } from './sandbox-error.js';
import type { SandboxErrorCode } from './sandbox-error.js';
import { snapshot } from './service.js';
import type { Service } from './service.js';

/*
 * The sandbox's controls over HTTP, under /__sandbox, for the CLI and for tests in another
 * process. They carry no signature, so they answer loopback callers only.
 */

const SettleBody = z.strictObject({
  id: z.string().min(1),
  status: z.string().min(1),
  amount: z.number().positive().optional(),
});

const ClockBody = z.union([z.strictObject({ advanceSeconds: z.number() }), z.strictObject({ set: z.iso.datetime({ offset: true }) })]);

const CallbackUrlsBody = z.strictObject(
  Object.fromEntries(CALLBACK_KINDS.map((kind) => [kind, z.url().optional()])) as Record<CallbackKind, z.ZodOptional<z.ZodURL>>,
);

/** The control endpoints, as the index lists them. */
const ENDPOINTS = [
  'GET  /__sandbox/accounts            the credentials of the provider and the dealer',
  'GET  /__sandbox/records             every record, oldest first',
  'GET  /__sandbox/records/{id}        one record by tracking code or transfer id',
  'POST /__sandbox/settle              {"id", "status", "amount"?}: move a record to an end status and deliver its callback',
  'GET  /__sandbox/deliveries          every callback attempt',
  'GET  /__sandbox/clock               the record clock',
  'POST /__sandbox/clock               {"advanceSeconds"} or {"set": ISO 8601}: move the record clock, expiring what runs out',
  `PUT  /__sandbox/callback-urls       {${CALLBACK_KINDS.map((kind) => `"${kind}"?`).join(', ')}}: where callbacks go`,
];

const STATUS_OF: Readonly<Record<SandboxErrorCode, number>> = { unknown_record: 404, refused_move: 409, invalid_amount: 422 };

export async function control(service: Service, request: Request, url: URL, clientAddress: string): Promise<Reply<unknown>> {
  if (!isLoopback(clientAddress)) return errorFailure(403, 'Forbidden', 'The sandbox controls answer loopback callers only');
  const path = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/+$/, '');
  const route = `${request.method} ${path}`;
  const recordId = /^GET \/records\/(.+)$/.exec(route)?.[1];
  try {
    if (recordId !== undefined) {
      const record = service.records.get(decodeURIComponent(recordId));
      return record === undefined ? errorFailure(404, 'Not Found', `No record has the id ${recordId}`) : success({ success: true, record: snapshot(record) });
    }
    switch (route) {
      case 'GET ':
        return success({ success: true, accounts: accountsOf(service.fixtures), endpoints: ENDPOINTS });
      case 'GET /accounts':
        return success({ success: true, accounts: accountsOf(service.fixtures) });
      case 'GET /records':
        return success({ success: true, records: service.records.list().map(snapshot) });
      case 'POST /settle': {
        const body = await readBody(request, SettleBody);
        if (!body.ok) return body.failure;
        return success({ success: true, ...(await service.settle(body.value.id, body.value.status, { amount: body.value.amount })) });
      }
      case 'GET /deliveries':
        return success({ success: true, deliveries: service.deliverer.attempts() });
      case 'GET /clock':
        return success({ success: true, now: new Date(service.clock.now()).toISOString() });
      case 'POST /clock': {
        const body = await readBody(request, ClockBody);
        if (!body.ok) return body.failure;
        const expired = 'set' in body.value ? await service.setClock(Date.parse(body.value.set)) : await service.advanceClock(body.value.advanceSeconds * 1000);
        return success({ success: true, now: new Date(service.clock.now()).toISOString(), expired });
      }
      case 'PUT /callback-urls': {
        const body = await readBody(request, CallbackUrlsBody);
        if (!body.ok) return body.failure;
        service.callbackUrls = body.value;
        return success({ success: true, callbackUrls: service.callbackUrls });
      }
      default:
        return errorFailure(404, 'Not Found', `No sandbox control at ${route}; GET ${CONTROL_PREFIX} lists them`);
    }
  } catch (error) {
    if (error instanceof SandboxError) return errorFailure(STATUS_OF[error.code], error.code, error.message);
    throw error;
  }
}

async function readBody<S extends z.ZodType>(request: Request, schema: S): Promise<{ ok: true; value: z.output<S> } | { ok: false; failure: Reply<never> }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await request.text()) as unknown;
  } catch {
    return { ok: false, failure: errorFailure(400, 'Invalid JSON', 'The request body is not valid JSON') };
  }
  const parsed = validate(schema, raw);
  return parsed.ok ? parsed : { ok: false, failure: validationFailure(issueMessages(parsed.issues)) };
}

const isLoopback = (address: string): boolean => /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/i.test(address);
