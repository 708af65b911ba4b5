import { safeParseTrackingCode } from 'payorch';
import type { CallbackKind, SignCallbackPayload } from 'payorch/webhooks';
import type { SandboxRecordKind } from 'payorch/sandbox';
import { DIRECTION_OF_KIND } from '../../webhooks/payload.js';
import type { KindRule } from '../sandbox/record-kinds.js';
import type { StoredRecord } from '../sandbox/records.js';
import { CONTROL_PREFIX, KINDS, callbackPayload } from '../cli-internals.js';
import { OperationError, UsageError } from './io.js';

/*
 * `payorch trigger --from-record <tracking_code>`: the callback of a record that exists. With
 * `--sandbox-url`, the record is read from the sandbox's controls and the callback carries what
 * the sandbox itself would send for it (its amount, site and customer); without, the tracking
 * code is one of your own records, checked against the event's kind, and every other field is
 * the default or `--set`.
 */

/** A tracking code of spec 2.1 whose prefix fits a `kind` callback, or a usage error naming --from-record. */
export function checkRecordCode(kind: CallbackKind, code: string): void {
  const parsed = safeParseTrackingCode(code);
  if (!parsed.success) throw new UsageError(`--from-record is not a tracking code of spec 2.1 (PREFIX-segment-unixseconds, for example MAN-a8Xk29Qp-1763812000): ${code}`);
  if (parsed.data.direction !== DIRECTION_OF_KIND[kind]) {
    throw new UsageError(`--from-record ${code}: a ${parsed.data.prefix} code names a ${parsed.data.kind} record (spec 2.1), which does not send a ${kind} callback`);
  }
}

/** The record as `GET /__sandbox/records/{id}` answers it (dates as ISO text). */
interface RecordAnswer {
  readonly id: string;
  readonly kind: SandboxRecordKind;
  readonly status: string;
  readonly amount: number;
  readonly siteId?: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly completedAt?: string;
  readonly params: Readonly<Record<string, unknown>>;
}

function isRecordAnswer(value: unknown): value is RecordAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as { readonly [field: string]: unknown };
  return (
    typeof record['id'] === 'string' &&
    typeof record['kind'] === 'string' &&
    Object.hasOwn(KINDS, record['kind']) &&
    typeof record['amount'] === 'number' &&
    typeof record['params'] === 'object' &&
    record['params'] !== null
  );
}

/**
 * The unsigned fields the sandbox at `sandboxUrl` would send in the `kind` callback of record
 * `code` at `status`. The record itself does not move: settling it is `POST /__sandbox/settle`.
 */
export async function sandboxRecordFields(sandboxUrl: string, kind: CallbackKind, status: string, code: string, timeoutMs: number): Promise<SignCallbackPayload> {
  const url = new URL(`${CONTROL_PREFIX}/records/${encodeURIComponent(code)}`, sandboxUrl);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new OperationError(`Could not read record ${code} from the sandbox at ${url.origin} (--sandbox-url): ${cause}`);
  }
  const text = await response.text();
  if (response.status === 404) throw new OperationError(`The sandbox at ${url.origin} has no record ${code} (--from-record); GET ${CONTROL_PREFIX}/records lists them`);
  let record: unknown;
  try {
    record = (JSON.parse(text) as { record?: unknown }).record;
  } catch {
    record = undefined;
  }
  if (!response.ok || !isRecordAnswer(record)) {
    throw new OperationError(`${url.origin} did not answer as a payorch sandbox (--sandbox-url): HTTP ${response.status} ${text.slice(0, 200)}`);
  }
  const rule: KindRule = KINDS[record.kind];
  const sends = rule.callback;
  if (sends === undefined) throw new UsageError(`--from-record ${code}: the sandbox record is a ${record.kind}, which sends no callback (spec 6.1)`);
  if (sends !== kind) throw new UsageError(`--from-record ${code}: the sandbox record is a ${record.kind}, which sends ${sends} callbacks, not ${kind}`);
  return callbackPayload(kind, storedRecord(record, status), false);
}

/** The answer as the record the sandbox keeps, at the event's status; ids the answer leaves out are made up. */
function storedRecord(record: RecordAnswer, status: string): StoredRecord {
  const card = record.kind === 'cardPayment' || record.kind === 'dealerCardPayment';
  const completedAt = record.completedAt === undefined ? undefined : Date.parse(record.completedAt);
  return {
    code: record.id,
    kind: record.kind,
    status,
    amount: record.amount,
    createdAt: Date.parse(record.createdAt),
    updatedAt: Date.parse(record.updatedAt),
    expiresAt: undefined,
    completedAt: completedAt ?? Date.now(),
    txId: String(Math.floor(Math.random() * 9_000_000) + 1_000_000),
    orderId: card ? `ORD${String(Date.now()).slice(-12)}` : undefined,
    siteId: record.siteId,
    params: record.params,
  };
}
