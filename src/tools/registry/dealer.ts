import { dealerCardPaymentEndpoint } from '../../dealer/credit-card.js';
import { eibanListEndpoint } from '../../dealer/eibans.js';
import { manualIbanDepositEndpoint, manualIbanWithdrawEndpoint } from '../../dealer/manual-iban.js';
import { settingsEndpoint } from '../../dealer/settings.js';
import { transactionListEndpoint } from '../../dealer/transactions.js';
import { sendMoneyEndpoint, transferStatusEndpoint } from '../../dealer/transfers.js';
import type { DealerErrorCode } from '../../errors/api-error.js';
import type { ValidationIssue } from '../../errors/error.js';
import {
  DEALER_CARD_CONTACT,
  DEALER_CODE_FIELD,
  DEALER_CODE_STATUS,
  DEALER_GET,
  DEALER_MANUAL_MINIMUM,
  DEALER_POST,
  DEALER_RECIPIENT_IBAN,
  TRANSACTION_RANGE,
} from '../../spec-gaps.js';
import { cardFailure, dealerFailure, errorFailure, success } from '../sandbox/answers.js';
import type { Failure } from '../sandbox/answers.js';
import { formatIsoLocal } from '../sandbox/clock.js';
import { centsToDecimal, toCents } from '../sandbox/fixtures.js';
import { transactionDate } from '../sandbox/history.js';
import { formatIban, isValidIban } from '../sandbox/iban.js';
import { paymentUrl } from '../sandbox/route.js';
import { dealer } from './row.js';
import type { ApiEndpoint } from './row.js';

/** Spec 4.13, 8: transactions come 100 to a page. */
const PAGE_SIZE = 100;

const iban = 'TR330006100519786457841326';

/**
 * Turns the failures of the row's schema that spec 7.4 gives a code into that code. Only when
 * every failed rule has one: a missing field is still the validation error of 7.2 (its example
 * is "a missing recipient IBAN or a missing amount").
 */
function coded(map: (issue: ValidationIssue) => DealerErrorCode | undefined) {
  return (issues: readonly ValidationIssue[]): Failure | undefined => {
    const codes = issues.map(map);
    const [first] = codes;
    if (first === undefined || codes.some((code) => code === undefined)) return undefined;
    return dealerFailure(first, issues.map((issue) => `${issue.field} ${issue.message}`).join('; '));
  };
}

/** Every endpoint of the Dealer API (spec 4.13), in its order, each with how the sandbox answers it. */
export const DEALER_ENDPOINTS: readonly ApiEndpoint[] = [
  dealer(settingsEndpoint, {
    gaps: [DEALER_GET],
    answer: { success: true, message: 'Welcome, Demo Dealer', dealer_name: 'Demo Dealer', payment_methods: { credit_card: 'active', eiban: 'active', manual_iban: 'inactive' } },
    handle: ({ service }) => {
      const { dealer } = service.fixtures;
      return success({ success: true, message: `Welcome, ${dealer.name}`, dealer_name: dealer.name, payment_methods: { ...dealer.paymentMethods } });
    },
  }),
  dealer(manualIbanDepositEndpoint, {
    gaps: [DEALER_POST, DEALER_MANUAL_MINIMUM],
    params: { username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 1500 },
    answer: {
      success: true,
      message: 'IBAN assigned',
      data: {
        tracking_code: 'DEP-k8Bh3G-1763812300',
        bank_name: 'Demo Bank',
        account_name: 'Demo Dealer Ltd.',
        iban_no: iban,
        amount: 1500,
        formatted_iban: 'TR33 0006 1005 1978 6457 8413 26',
      },
    },
    handle: (context, params) => {
      const { dealer } = context.service.fixtures;
      // "Returns an IBAN chosen by amount limits" (4.13): the first account whose bounds hold the amount.
      const account = dealer.manualIbans.find((candidate) => params.amount >= candidate.minAmount && params.amount <= candidate.maxAmount);
      if (account === undefined) return errorFailure(422, 'No IBAN available for this amount', `No manual IBAN of the dealer accepts ${params.amount} TRY`);
      const record = context.service.records.create('dealerManualDeposit', { amount: params.amount, params });
      return success({
        success: true,
        message: 'Send the amount to this IBAN with the tracking code as the description',
        data: {
          tracking_code: record.code,
          bank_name: account.bankName,
          account_name: account.accountName,
          iban_no: account.iban,
          amount: params.amount,
          formatted_iban: formatIban(account.iban),
        },
      });
    },
  }),
  dealer(manualIbanWithdrawEndpoint, {
    gaps: [DEALER_POST, DEALER_MANUAL_MINIMUM, DEALER_RECIPIENT_IBAN],
    params: { username: 'ada', userid: 'u-1', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: iban },
    answer: {
      success: true,
      message: 'Withdrawal request received',
      data: { tracking_code: 'WDR-n1Dj5E-1763812302', status: 'pending', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: iban },
    },
    handle: (context, params) => {
      const record = context.service.records.create('dealerManualWithdrawal', { amount: params.amount, params });
      return success({
        success: true,
        message: 'Withdrawal request received',
        data: { tracking_code: record.code, status: record.status, amount: params.amount, recipient_name: params.recipient_name, recipient_iban: params.recipient_iban },
      });
    },
  }),
  dealer(eibanListEndpoint, {
    gaps: [DEALER_GET],
    answer: {
      success: true,
      dealer_name: 'Demo Dealer',
      total_eibans: 1,
      eibans: [
        { id: 1, iban_no: iban, bank_name: 'Demo Bank', account_name: 'Demo Dealer Ltd.', wallet_id: 'WLT-1', balance: '75000.00', available_balance: '73500.00' },
      ],
    },
    handle: ({ service }) => {
      const { dealer } = service.fixtures;
      return success({
        success: true,
        dealer_name: dealer.name,
        total_eibans: dealer.eibans.length,
        eibans: dealer.eibans.map((eiban) => ({
          id: eiban.id,
          iban_no: eiban.iban,
          bank_name: eiban.bankName,
          account_name: eiban.accountName,
          wallet_id: eiban.walletId,
          balance: centsToDecimal(eiban.balanceCents),
          available_balance: centsToDecimal(eiban.availableCents),
        })),
      });
    },
  }),
  dealer(transactionListEndpoint, {
    gaps: [TRANSACTION_RANGE, DEALER_CODE_FIELD, DEALER_CODE_STATUS],
    codes: ['DATE_RANGE_EXCEEDED', 'INVALID_DATE_RANGE', 'WALLET_NOT_ASSIGNED'],
    params: { wallet_id: 'WLT-1', start_date: '2026-03-01', end_date: '2026-03-03' },
    answer: {
      success: true,
      dealer_name: 'Demo Dealer',
      wallet_id: 'WLT-1',
      date_range: { start_date: '2026-03-01', end_date: '2026-03-03' },
      pagination: { current_page: 1, per_page: 100, total_records: 1, total_pages: 1, has_more: false },
      transactions: [
        {
          transactionId: 'TX-1001',
          amount: '1500.00',
          type: 'incoming',
          description: 'Deposit DEP-k8Bh3G',
          senderName: 'Ada Yılmaz',
          senderIban: iban,
          date: '2026-03-01T14:05:00',
        },
      ],
    },
    handle: ({ service }, params) => {
      if (service.eiban(params.wallet_id) === undefined) return dealerFailure('WALLET_NOT_ASSIGNED', `Wallet ${params.wallet_id} is not assigned to this dealer`);
      // Dates are UTC days, as the sandbox writes every time (docs/spec-gaps.md).
      const from = Date.parse(`${params.start_date}T00:00:00Z`);
      const to = Date.parse(`${params.end_date}T00:00:00Z`) + 86_400_000;
      const inRange = service.transactions(params.wallet_id).filter((transaction) => transaction.at >= from && transaction.at < to);
      const page = params.page ?? 1;
      const totalPages = Math.ceil(inRange.length / PAGE_SIZE);
      return success({
        success: true,
        dealer_name: service.fixtures.dealer.name,
        wallet_id: params.wallet_id,
        date_range: { start_date: params.start_date, end_date: params.end_date },
        pagination: { current_page: page, per_page: PAGE_SIZE, total_records: inRange.length, total_pages: totalPages, has_more: page < totalPages },
        transactions: inRange.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((transaction) => ({
          transactionId: transaction.transactionId,
          amount: centsToDecimal(transaction.amountCents),
          type: transaction.type,
          description: transaction.description,
          senderName: transaction.senderName,
          senderIban: transaction.senderIban,
          date: transactionDate(transaction),
        })),
      });
    },
    // The row's schema refuses a reversed or too long range on end_date; 7.4 names both.
    invalid: coded((issue) => (issue.field !== 'end_date' ? undefined : issue.rule === 'too_small' ? 'INVALID_DATE_RANGE' : issue.rule === 'too_big' ? 'DATE_RANGE_EXCEEDED' : undefined)),
  }),
  dealer(sendMoneyEndpoint, {
    gaps: [DEALER_POST, DEALER_RECIPIENT_IBAN, DEALER_CODE_FIELD, DEALER_CODE_STATUS],
    codes: ['WALLET_NOT_ASSIGNED', 'INSUFFICIENT_BALANCE', 'INVALID_IBAN', 'MIN_AMOUNT_ERROR'],
    params: { wallet_id: 'WLT-1', recipient_iban: iban, recipient_name: 'Ada Yılmaz', amount: 250, description: 'Payout 42' },
    answer: {
      success: true,
      message: 'Transfer started',
      transfer: { transfer_id: 'TRF-8fK2pQ', status: 'pending', amount: '250.00', recipient_iban: iban, recipient_name: 'Ada Yılmaz', created_at: '2026-03-02T09:00:00' },
    },
    handle: (context, params) => {
      const { service } = context;
      if (!isValidIban(params.recipient_iban)) return dealerFailure('INVALID_IBAN', 'recipient_iban is not a valid IBAN (its check digits do not match)');
      const eiban = service.eiban(params.wallet_id);
      if (eiban === undefined) return dealerFailure('WALLET_NOT_ASSIGNED', `Wallet ${params.wallet_id} is not assigned to this dealer`);
      const cents = toCents(params.amount);
      if (cents > eiban.availableCents) {
        return dealerFailure('INSUFFICIENT_BALANCE', `Wallet ${params.wallet_id} has ${centsToDecimal(eiban.availableCents)} TRY available, less than ${centsToDecimal(cents)}`);
      }
      // A pending transfer holds its amount out of the available balance; settling it decides the rest.
      eiban.availableCents -= cents;
      const record = service.records.create('transfer', { amount: params.amount, params });
      service.addTransaction(eiban.walletId, {
        at: record.createdAt,
        transactionId: `TXO${record.txId}`,
        amountCents: cents,
        type: 'outgoing',
        description: params.description ?? `Transfer ${record.code}`,
        senderName: eiban.accountName,
        senderIban: eiban.iban,
      });
      return success({
        success: true,
        message: 'Transfer started',
        transfer: {
          transfer_id: record.code,
          status: record.status,
          amount: centsToDecimal(cents),
          recipient_iban: params.recipient_iban,
          recipient_name: params.recipient_name,
          created_at: formatIsoLocal(record.createdAt),
        },
      });
    },
    invalid: coded((issue) => {
      if (issue.field === 'amount' && issue.rule === 'too_small') return 'MIN_AMOUNT_ERROR';
      // Present but malformed; a missing IBAN stays a validation error.
      if (issue.field === 'recipient_iban' && issue.rule !== 'invalid_type') return 'INVALID_IBAN';
      return undefined;
    }),
  }),
  dealer(transferStatusEndpoint, {
    params: { transfer_id: 'TRF-8fK2pQ' },
    answer: {
      success: true,
      dealer_name: 'Demo Dealer',
      transfer: {
        transfer_id: 'TRF-8fK2pQ',
        status: 'completed',
        amount: '250.00',
        recipient_iban: iban,
        recipient_name: 'Ada Yılmaz',
        description: 'Payout 42',
        created_at: '2026-03-02T09:00:00',
        completed_at: '2026-03-02T09:03:12',
      },
    },
    handle: ({ service }, params) => {
      const record = service.records.get(params.transfer_id);
      if (record?.kind !== 'transfer') return errorFailure(404, 'Transfer not found', `No transfer has the id ${params.transfer_id}`);
      const { recipient_iban, recipient_name, description } = record.params;
      return success({
        success: true,
        dealer_name: service.fixtures.dealer.name,
        transfer: {
          transfer_id: record.code,
          status: record.status,
          amount: centsToDecimal(toCents(record.amount)),
          recipient_iban: typeof recipient_iban === 'string' ? recipient_iban : undefined,
          recipient_name: typeof recipient_name === 'string' ? recipient_name : undefined,
          description: typeof description === 'string' ? description : null,
          created_at: formatIsoLocal(record.createdAt),
          completed_at: record.completedAt === undefined ? null : formatIsoLocal(record.completedAt),
        },
      });
    },
  }),
  dealer(dealerCardPaymentEndpoint, {
    gaps: [DEALER_POST, DEALER_CARD_CONTACT],
    params: { username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.com', phone: '+905551112233', amount: 450 },
    answer: {
      success: true,
      message: 'Payment created',
      data: { tracking_code: 'CC-k3J9x-1763812400', payment_url: 'https://pay.example.com/card/CC-k3J9x-1763812400', order_id: 'ORD-77', amount: 450, currency: 'TRY' },
    },
    handle: (context, params) => {
      if (context.service.fixtures.dealer.paymentMethods.credit_card !== 'active') return cardFailure(403, 'Credit card payment is not enabled for this dealer');
      const record = context.service.records.create('dealerCardPayment', { amount: params.amount, params });
      return success({
        success: true,
        message: 'Card payment created; redirect the customer to payment_url',
        data: { tracking_code: record.code, payment_url: paymentUrl(context, record.code), order_id: record.orderId ?? '', amount: record.amount, currency: 'TRY' },
      });
    },
  }),
];
