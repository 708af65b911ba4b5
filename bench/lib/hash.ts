import { createHash } from 'node:crypto';

/** The basic hash of spec 5.1, hand-computed with node:crypto: what a caller without payorch writes. */
export const basicHash = (apiKey: string, secretKey: string, timestamp: string): string =>
  createHash('sha256').update(apiKey + secretKey + timestamp, 'utf8').digest('hex');

export const unixSeconds = (): string => String(Math.floor(Date.now() / 1000));
