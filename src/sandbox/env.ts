import type { SandboxAccounts } from './fixtures.js';

/**
 * The sandbox's address and credentials under the environment names the examples read
 * (examples/env.ts). The CLI prints them; `npm run examples` passes them to each example.
 */
export function exampleEnvironment(url: string, accounts: SandboxAccounts): Record<string, string> {
  return {
    PAYORCH_BASE_URL: url,
    PAYORCH_PROVIDER_API_KEY: accounts.provider.apiKey,
    PAYORCH_PROVIDER_SECRET_KEY: accounts.provider.secretKey,
    PAYORCH_SITES_KEY: accounts.provider.key,
    PAYORCH_CREDENTIAL_KEY: accounts.provider.sites[0].credentialKey,
    PAYORCH_DEALER_API_KEY: accounts.dealer.apiKey,
    PAYORCH_DEALER_SECRET_KEY: accounts.dealer.secretKey,
  };
}
