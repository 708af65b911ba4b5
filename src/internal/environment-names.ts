/**
 * The environment variable names payorch's examples, CLI and sandbox agree on, in the order the
 * sandbox prints them. Code reads them from here; prose (README, guides, help texts) writes them
 * out and test/docs/environment-names.test.ts checks it uses no other.
 */
export const ENVIRONMENT_NAMES = {
  baseUrl: 'PAYORCH_BASE_URL',
  providerApiKey: 'PAYORCH_PROVIDER_API_KEY',
  providerSecretKey: 'PAYORCH_PROVIDER_SECRET_KEY',
  credentialKey: 'PAYORCH_CREDENTIAL_KEY',
  sitesKey: 'PAYORCH_SITES_KEY',
  dealerApiKey: 'PAYORCH_DEALER_API_KEY',
  dealerSecretKey: 'PAYORCH_DEALER_SECRET_KEY',
} as const;
