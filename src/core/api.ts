/** The two APIs of the service (spec 4.2, 4.13); also which account a callback is for. */
export type Api = 'provider' | 'dealer';
