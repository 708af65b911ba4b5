import type { DeliveryResult } from './delivery.js';
import type { Fixtures } from './fixtures.js';
import { KINDS } from './record-kinds.js';
import type { KindRule, SandboxRecordKind } from './record-kinds.js';
import type { StoredRecord } from './records.js';
import { formatDateTime } from './clock.js';

/*
 * The payment page, server-rendered: plain HTML forms, no script, no external asset, every value
 * escaped by `html`. What a customer would see at `payment_url`, plus what a tester needs: the
 * outcome buttons and the callback delivery log.
 */

/** What the page shows besides the record. */
export interface PageView {
  readonly record: StoredRecord;
  readonly fixtures: Fixtures;
  /** The record's logged deliveries, oldest first. */
  readonly deliveries: readonly DeliveryResult[];
  /** Where the record's callbacks go now; undefined when none is configured. */
  readonly callbackUrl: string | undefined;
  /** Why the record's current status sends no callback (Service.noCallbackReason); undefined when it sends one. */
  readonly noCallbackReason: string | undefined;
  /** The per-sandbox form token. */
  readonly token: string;
  /** What the last form post did, read from the redirect's query. */
  readonly notice: { readonly done: string; readonly deliveryId: string | undefined } | undefined;
}

const TITLES: Readonly<Record<SandboxRecordKind, string>> = {
  manualDeposit: 'Manual deposit',
  manualWithdrawal: 'Manual withdrawal',
  eibanDeposit: 'E-IBAN deposit',
  eibanWithdrawal: 'E-IBAN withdrawal',
  bankDeposit: 'Bank transfer deposit',
  bankWithdrawal: 'Bank transfer withdrawal',
  cryptoDeposit: 'Crypto deposit',
  cryptoWithdrawal: 'Crypto withdrawal',
  walletDeposit: 'Wallet deposit',
  walletWithdrawal: 'Wallet withdrawal',
  cardPayment: 'Card payment',
  dealerCardPayment: 'Card payment (dealer)',
  dealerManualDeposit: 'Dealer manual IBAN deposit',
  dealerManualWithdrawal: 'Dealer manual IBAN withdrawal',
  transfer: 'Transfer',
};

/** Button text of each end status; the first button of a form is the primary one. */
const ACTIONS: Readonly<Record<string, string>> = {
  completed: 'Complete payment',
  success: 'Pay',
  canceled: 'Cancel',
  cancelled: 'Cancel',
  failed: 'Fail',
  expired: 'Expire',
  rejected: 'Reject',
  refunded: 'Refund',
};

/** Escapes text for HTML content and double-quoted attribute values. */
function html(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const money = (amount: number): string => `${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} TRY`;

/** The account the customer pays into, for the kinds that pay by bank transfer. */
function bankDetails(record: StoredRecord, fixtures: Fixtures): { bank: string; accountName: string; iban: string } | undefined {
  const { eibans, manualIbans } = fixtures.dealer;
  if (record.kind === 'eibanDeposit') {
    const eiban = eibans[0];
    return eiban === undefined ? undefined : { bank: eiban.bankName, accountName: eiban.accountName, iban: eiban.iban };
  }
  if (record.kind !== 'manualDeposit' && record.kind !== 'bankDeposit') return undefined;
  const account = manualIbans.find((candidate) => candidate.minAmount <= record.amount && record.amount <= candidate.maxAmount) ?? manualIbans[0];
  return account === undefined ? undefined : { bank: account.bankName, accountName: account.accountName, iban: account.iban };
}

const groupIban = (iban: string): string => iban.replace(/(.{4})(?=.)/g, '$1 ');

function row(label: string, value: string, className = ''): string {
  return `<div class="row"><dt>${html(label)}</dt><dd${className === '' ? '' : ` class="${className}"`}>${value}</dd></div>`;
}

function noticeOf(view: PageView): string {
  const { notice, deliveries, record } = view;
  if (notice === undefined) return '';
  const delivery = deliveries.find((candidate) => candidate.id === notice.deliveryId);
  const what = notice.done === 'redeliver' ? 'Callback sent again.' : `Payment ${html(record.status)}.`;
  if (delivery === undefined) {
    return `<p class="notice warn" role="status">${what} No callback was delivered: ${html(view.noCallbackReason ?? 'its delivery is not in the log')}.</p>`;
  }
  const last = delivery.attempts.at(-1);
  const answer = last?.httpStatus === undefined ? html(last?.error ?? 'no answer') : `HTTP ${html(last.httpStatus)}`;
  const attempts = `${delivery.attempts.length} attempt${delivery.attempts.length === 1 ? '' : 's'}`;
  return delivery.delivered
    ? `<p class="notice ok" role="status">${what} Callback <code>${html(delivery.id)}</code> delivered to <code>${html(delivery.url)}</code>: ${answer} after ${attempts}.</p>`
    : `<p class="notice bad" role="status">${what} Callback <code>${html(delivery.id)}</code> to <code>${html(delivery.url)}</code> was not acknowledged: ${answer} after ${attempts}.</p>`;
}

function deliveryLog(view: PageView, action: string, token: string): string {
  if (view.deliveries.length === 0) {
    return `<p class="muted">No callback sent yet. Callbacks for this record go to ${view.callbackUrl === undefined ? 'nowhere: no URL is configured' : `<code>${html(view.callbackUrl)}</code>`}.</p>`;
  }
  const rows = [...view.deliveries].reverse().map((delivery) => {
    const attempts = delivery.attempts
      .map((attempt) => `<span class="${attempt.delivered ? 'ok' : 'bad'}" title="${html(attempt.at.toISOString())}">${attempt.httpStatus === undefined ? 'no answer' : html(attempt.httpStatus)}</span>`)
      .join(' ');
    const first = delivery.attempts[0];
    const signed = first === undefined ? '' : html(first.signedAt.toISOString().replace('.000Z', 'Z'));
    const result = delivery.attempts.length === 0 ? '<span class="muted">sending</span>' : delivery.delivered ? '<span class="ok">delivered</span>' : '<span class="bad">failed</span>';
    const redeliver = (resign: boolean, label: string) =>
      `<form method="post" action="${action}"><input type="hidden" name="token" value="${token}"><input type="hidden" name="action" value="redeliver"><input type="hidden" name="delivery" value="${html(delivery.id)}"><input type="hidden" name="resign" value="${resign}"><button class="small">${label}</button></form>`;
    return `<tr><td><code>${html(delivery.id)}</code>${delivery.redeliveryOf === undefined ? '' : `<br><span class="muted">again: ${html(delivery.redeliveryOf)}</span>`}</td><td>${html(delivery.attempts[0]?.status ?? '')}</td><td class="url"><code>${html(delivery.url)}</code></td><td>${attempts}</td><td>${signed}</td><td>${result}</td><td class="actions">${redeliver(true, 'Redeliver')}${redeliver(false, 'Redeliver, original signature')}</td></tr>`;
  });
  return `<table><thead><tr><th>Delivery</th><th>Status</th><th>URL</th><th>Answers</th><th>Signed at</th><th>Result</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The payment page of a record. */
export function paymentPage(view: PageView): string {
  const { record, fixtures } = view;
  const rule: KindRule = KINDS[record.kind];
  const moves = rule.moves[record.status] ?? [];
  const action = `/__sandbox/records/${encodeURIComponent(record.code)}`;
  const token = html(view.token);
  const editable = record.kind === 'manualDeposit' && moves.includes('completed');
  const bank = bankDetails(record, fixtures);
  const params = record.params;
  const customer = [params['fullname'], [params['firstname'], params['lastname']].filter((part) => typeof part === 'string').join(' ')].find((name) => typeof name === 'string' && name !== '');

  const amount = editable
    ? `<label for="amount">Amount to pay</label><div class="amount"><input id="amount" name="amount" type="number" inputmode="decimal" min="1" step="0.01" value="${html(record.amount)}" required><span>TRY</span></div><p class="muted">You may change the amount before you pay (spec 4.5); the callback reports the amount paid.</p>`
    : `<p class="big">${html(money(record.amount))}</p>`;
  const details = bank === undefined
    ? ''
    : `<section><h2>2. Bank details</h2><dl>${row('Bank', html(bank.bank))}${row('Account name', html(bank.accountName))}${row('IBAN', html(groupIban(bank.iban)), 'mono')}${row('Reference', html(record.code), 'mono')}</dl><p class="muted">Transfer the amount to this account with the reference in the description.</p></section>`;
  const buttons = moves.length === 0
    ? `<p class="muted">This record is <strong>${html(record.status)}</strong>: no further move is allowed.</p>`
    : `<div class="buttons">${moves.map((status, index) => `<button name="action" value="${html(status)}"${index === 0 ? ' class="primary"' : ''}${index > 0 && editable ? ' formnovalidate' : ''}>${html(ACTIONS[status] ?? status)}</button>`).join('')}</div>`;

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(TITLES[record.kind])} ${html(record.code)} · payorch sandbox</title>
<style>${STYLE}</style></head>
<body><main>
<header><span class="brand">payorch sandbox</span><span class="tag">test payment page · no money moves</span></header>
${noticeOf(view)}
<h1>${html(TITLES[record.kind])}</h1>
<dl class="facts">${row('Tracking code', html(record.code), 'mono')}${row('Status', `<span class="status s-${html(record.status)}">${html(record.status)}</span>`)}${customer === undefined ? '' : row('Customer', html(customer))}${record.orderId === undefined ? '' : row('Order', html(record.orderId), 'mono')}${record.expiresAt === undefined ? '' : row('Expires at', `${html(formatDateTime(record.expiresAt))} UTC`)}</dl>
<form method="post" action="${action}"><input type="hidden" name="token" value="${token}">
<section><h2>1. Amount</h2>${amount}</section>
${details}
<section><h2>${bank === undefined ? '2' : '3'}. Outcome</h2><p class="muted">Each button settles the record as the service would and delivers its signed callback.</p>${buttons}</section>
</form>
<section><h2>Callback deliveries</h2>${deliveryLog(view, action, token)}</section>
</main></body></html>`;
}

/** A refusal or error, as a page with a way back. */
export function errorPage(title: string, message: string, back: string | undefined): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${html(title)} · payorch sandbox</title><style>${STYLE}</style></head>
<body><main><header><span class="brand">payorch sandbox</span></header><h1>${html(title)}</h1><p class="notice bad">${html(message)}</p>${back === undefined ? '' : `<p><a href="${html(back)}">Back to the payment page</a></p>`}</main></body></html>`;
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;background:#f3f4f7;color:#1c2230;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:880px;margin:24px auto;padding:24px 32px;background:#fff;border:1px solid #dde1e8;border-radius:10px}
header{display:flex;gap:12px;align-items:baseline;border-bottom:1px solid #e6e9ef;padding-bottom:12px;margin-bottom:8px}
.brand{font-weight:700;color:#3b4cca}.tag{font-size:13px;color:#6b7385}
h1{font-size:24px;margin:16px 0 8px}h2{font-size:16px;margin:0 0 8px;color:#384054}
section{border-top:1px solid #eef0f4;padding:16px 0}
dl{margin:0}.row{display:flex;gap:16px;padding:3px 0}dt{width:140px;color:#6b7385;flex:none}dd{margin:0}
.mono,code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:14px}
.facts{margin-bottom:8px}.big{font-size:22px;font-weight:600;margin:0}
label{display:block;font-weight:600;margin-bottom:4px}
.amount{display:flex;align-items:center;gap:8px}.amount input{font-size:20px;width:200px;padding:6px 10px;border:1px solid #b9c0cd;border-radius:6px}
.muted{color:#6b7385;font-size:13px;margin:6px 0 0}
.buttons{display:flex;gap:10px;flex-wrap:wrap;margin-top:10px}
button{font:inherit;padding:8px 16px;border-radius:6px;border:1px solid #b9c0cd;background:#fff;cursor:pointer}
button.primary{background:#3b4cca;border-color:#3b4cca;color:#fff;font-weight:600}
button.small{font-size:12px;padding:3px 8px;margin:2px 0;white-space:nowrap}
.status{display:inline-block;padding:0 8px;border-radius:10px;background:#eef0f4;font-weight:600}
.s-completed,.s-success{background:#dff5e4;color:#17692d}.s-canceled,.s-cancelled,.s-failed,.s-rejected,.s-expired{background:#fde4e1;color:#9b2316}
.notice{padding:10px 14px;border-radius:6px;margin:12px 0}.notice.ok{background:#dff5e4;color:#1c2230;font-weight:400}.notice.bad{background:#fde4e1;color:#1c2230;font-weight:400}.notice.warn{background:#fff4d6}
table{width:100%;border-collapse:collapse;font-size:13px}th,td{text-align:left;padding:6px 6px;border-bottom:1px solid #eef0f4;vertical-align:top}
td.url{word-break:break-all}.ok{color:#17692d;font-weight:600}.bad{color:#9b2316;font-weight:600}td.actions form{margin:0}
`;
