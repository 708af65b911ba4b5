// Settings shared by the examples, read from the environment. `npm run examples` sets them to the
// sandbox's accounts; point them at a real service to run the same scripts there.
function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Set ${name} (npm run examples sets it for the sandbox)`);
  return value;
}

export const env = {
  baseUrl: () => required('PAYORCH_BASE_URL'),
  provider: () => ({
    apiKey: required('PAYORCH_PROVIDER_API_KEY'),
    secretKey: required('PAYORCH_PROVIDER_SECRET_KEY'),
    /** The additional verification key of sites.list (X-Key). */
    key: required('PAYORCH_SITES_KEY'),
    /** A site credential key. */
    credentialKey: required('PAYORCH_CREDENTIAL_KEY'),
  }),
  dealer: () => ({
    apiKey: required('PAYORCH_DEALER_API_KEY'),
    secretKey: required('PAYORCH_DEALER_SECRET_KEY'),
  }),
};
