// Success answers of the Dealer API as spec 2.7 and 4.13 show them, shared by the dealer tests.
import { BASE_URL, IBAN } from './wire.js';

export const DEALER_URL = `${BASE_URL}/api/dealer`;
export { IBAN } from './wire.js';

export const settingsAnswer = {
  success: true,
  message: 'Hoş geldiniz, Demo Dealer',
  dealer_name: 'Demo Dealer',
  payment_methods: { credit_card: 'active', eiban: 'active', manual_iban: 'inactive' },
};

export const manualDepositAnswer = {
  success: true,
  message: 'IBAN bulundu',
  data: {
    tracking_code: 'DEP-7hQ2xZ-1763812000',
    bank_name: 'Ziraat Bankası',
    account_name: 'Demo Dealer Ltd',
    iban_no: IBAN,
    amount: 1500,
    formatted_iban: 'TR33 0006 1005 1978 6457 8413 26',
  },
};

export const manualWithdrawAnswer = {
  success: true,
  message: 'Çekim talebi oluşturuldu',
  data: { tracking_code: 'WDR-p4Lm8s-1763812000', status: 'pending', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: IBAN },
};

export const eibansAnswer = {
  success: true,
  dealer_name: 'Demo Dealer',
  total_eibans: 2,
  eibans: [
    { id: 1, iban_no: IBAN, bank_name: 'Vakıfbank', account_name: 'Demo Dealer Ltd', wallet_id: 'WLT-A1', balance: '15000.00', available_balance: '12500.50' },
    { id: 2, iban_no: 'TR560006200000000012345678', bank_name: 'Garanti', account_name: 'Demo Dealer Ltd', wallet_id: 'WLT-B2', balance: '0.00', available_balance: '0.00' },
  ],
};

export const transferAnswer = {
  success: true,
  message: 'Transfer başlatıldı',
  transfer: { transfer_id: 'TRF-8fK2pQ', status: 'pending', amount: '250.00', recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', created_at: '2026-03-01T10:00:00' },
};

export const transferStatusAnswer = {
  success: true,
  dealer_name: 'Demo Dealer',
  transfer: { ...transferAnswer.transfer, status: 'completed', description: 'Kira', completed_at: '2026-03-01T10:02:13' },
};

export const cardPaymentAnswer = {
  success: true,
  message: 'Ödeme oluşturuldu',
  data: { tracking_code: 'CC-r5Tn1w-1763812000', payment_url: 'https://pay.example/cc/CC-r5Tn1w-1763812000', order_id: 'ORD-99812', amount: 450, currency: 'TRY' },
};

/** One page of transactions with the pagination the service would give it. */
export function transactionsAnswer(
  window: { wallet_id: string; start_date: string; end_date: string },
  page: number,
  transactions: readonly object[],
  totalRecords: number,
) {
  const totalPages = Math.ceil(totalRecords / 100);
  return {
    success: true,
    dealer_name: 'Demo Dealer',
    wallet_id: window.wallet_id,
    date_range: { start_date: window.start_date, end_date: window.end_date },
    pagination: { current_page: page, per_page: 100, total_records: totalRecords, total_pages: totalPages, has_more: page < totalPages },
    transactions,
  };
}
