// Sites (spec 4.4): list the provider's sites with the additional verification key (X-Key), then
// act for one site with withSite(): one client per site, sharing one connection setup.
import { ProviderClient } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, key, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey });

const list = await provider.sites.list({ key });
console.log(`${list.provider.name} has ${list.total_sites} site(s):`);
for (const site of list.sites) console.log(`  #${site.id} ${site.name} ${site.is_active ? 'active' : 'inactive'} since ${site.created_at}`);

// The credential key decides the site: the answer echoes which one the deposit belongs to.
const shop = provider.withSite(credentialKey);
const deposit = await shop.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1001', amount: 50 });
const site = deposit.data.site;
if (site === undefined || !list.sites.some((s) => s.id === site.id)) throw new Error('the deposit does not name one of the listed sites');
console.log(`Deposit ${deposit.data.tracking_code} belongs to site #${site.id} ${site.name}`);
