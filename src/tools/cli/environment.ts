import type { SandboxAccounts } from 'payorch/sandbox';

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

/**
 * A sandbox's address and credentials under the environment names the examples read
 * (examples/env.ts). `payorch sandbox` prints them; `npm run examples` passes them to each example.
 */
export function exampleEnvironment(url: string, accounts: SandboxAccounts): Record<string, string> {
  const values: Record<keyof typeof ENVIRONMENT_NAMES, string> = {
    baseUrl: url,
    providerApiKey: accounts.provider.apiKey,
    providerSecretKey: accounts.provider.secretKey,
    credentialKey: accounts.provider.sites[0].credentialKey,
    sitesKey: accounts.provider.key,
    dealerApiKey: accounts.dealer.apiKey,
    dealerSecretKey: accounts.dealer.secretKey,
  };
  return Object.fromEntries(Object.entries(ENVIRONMENT_NAMES).map(([key, name]) => [name, values[key as keyof typeof ENVIRONMENT_NAMES]]));
}
