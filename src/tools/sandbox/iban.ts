import type { SeededRandom } from './random.js';

/*
 * IBANs for the sandbox: generated ones carry a correct ISO 13616 check, so that a client's
 * own IBAN validation accepts them, and the dealer's recipient IBANs are checked the same way.
 */

/** True when `iban` has a country code, two check digits, 11 to 30 letters or digits, and a valid mod-97 check. */
export function isValidIban(iban: string): boolean {
  const compact = iban.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  return mod97(compact.slice(4) + compact.slice(0, 4)) === 1;
}

/** A Turkish IBAN (TR, 26 characters) with a correct check, for fixtures and generated history. */
export function turkishIban(random: SeededRandom): string {
  const bban = `${random.digits(5)}0${random.digits(16)}`;
  const check = 98 - mod97(`${bban}TR00`);
  return `TR${String(check).padStart(2, '0')}${bban}`;
}

/** The IBAN in groups of four characters separated by spaces (spec 2.7 `formatted_iban`). */
export function formatIban(iban: string): string {
  return iban.replace(/ /g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

function mod97(text: string): number {
  let remainder = 0;
  for (const character of text) {
    const code = character.charCodeAt(0);
    // Letters count as two digits: A = 10 ... Z = 35.
    const value = code >= 65 ? String(code - 55) : character;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}
