// Connection test: checks the keys, the clock and the IP whitelist in one call.
import { ProviderClient } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey });

const welcome = await provider.welcome();
console.log(`Connected as ${welcome.provider.name} (id ${welcome.provider.id}, active: ${welcome.provider.is_active})`);
