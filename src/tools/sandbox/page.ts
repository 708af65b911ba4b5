import { STATUS_OF } from './control.js';
import type { Caller } from './guard.js';
import { formRefusal } from './guard.js';
import { errorPage, paymentPage } from './page-html.js';
import { KINDS } from './record-kinds.js';
import type { KindRule } from './record-kinds.js';
import { SandboxError } from './sandbox-error.js';
import type { Service } from './service.js';

/*
 * The payment page at a record's `payment_url`, for browsers: GET shows it, POST takes its forms
 * (settle to an end status, redeliver a callback) and redirects back to it (post/redirect/get,
 * so that reloading does not post again). API clients asking for JSON get the control's JSON.
 */

/** Whether a request prefers HTML to JSON: a browser navigating, not an API client or curl. */
export function wantsHtml(request: Request): boolean {
  const accept = (request.headers.get('accept') ?? '').toLowerCase();
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  // No script at all, styles only inline, forms only to this origin, never framed (clickjacking).
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on the page's own form posts.
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  Vary: 'Accept',
};

const page = (status: number, body: string): Response => new Response(body, { status, headers: { ...HEADERS, Date: new Date().toUTCString() } });

/** GET: the page of record `id`. */
export function showPage(service: Service, id: string, url: URL): Response {
  const record = service.records.get(id);
  if (record === undefined) return page(404, errorPage('Unknown payment', `No record has the id ${id}; the sandbox forgets the oldest past maxRecords.`, undefined));
  const { callback }: KindRule = KINDS[record.kind];
  const done = url.searchParams.get('done');
  return page(
    200,
    paymentPage({
      record,
      fixtures: service.fixtures,
      deliveries: service.deliverer.deliveriesOf(record.code),
      callbackUrl: callback === undefined ? undefined : service.callbackUrls[callback],
      noCallbackReason: service.noCallbackReason(record),
      token: service.formToken,
      notice: done === null ? undefined : { done, deliveryId: url.searchParams.get('delivery') ?? undefined },
    }),
  );
}

/** POST: a form of the page of record `id`, checked as {@link formRefusal} says, then applied. */
export async function postPage(service: Service, id: string, request: Request, caller: Caller): Promise<Response> {
  const back = `/__sandbox/records/${encodeURIComponent(id)}`;
  const form = new URLSearchParams(await request.text());
  const refusal = formRefusal(request, caller, form.get('token'), service.formToken, service.publicOrigin);
  if (refusal !== undefined) return page(403, errorPage('Refused', refusal, back));
  const action = form.get('action') ?? '';
  try {
    if (action === 'redeliver') {
      const resign = form.get('resign');
      const result = await service.redeliver(form.get('delivery') ?? '', { resign: resign === null ? undefined : resign === 'true' });
      return redirect(`${back}?done=redeliver&delivery=${encodeURIComponent(result.id)}`);
    }
    const amountText = form.get('amount');
    // The amount field belongs to the completion; the other buttons leave the amount as it was.
    const amount = action === 'completed' && amountText !== null && amountText !== '' ? Number(amountText) : undefined;
    const { callback } = await service.settle(id, action, { amount });
    return redirect(`${back}?done=${encodeURIComponent(action)}${callback === undefined ? '' : `&delivery=${encodeURIComponent(callback.id)}`}`);
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return page(STATUS_OF[error.code], errorPage('Refused', error.message, back));
  }
}

const redirect = (location: string): Response => new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
