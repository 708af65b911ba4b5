import type { SandboxAccounts } from 'payorch/sandbox';
import { ENVIRONMENT_NAMES } from '../cli-internals.js';

// The one list, which the library reads its own names from (src/core/environment.ts).
export { ENVIRONMENT_NAMES };

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
