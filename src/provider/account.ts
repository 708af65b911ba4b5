import * as z from 'zod';
import { defineEndpoint } from '../core/endpoint.js';
import { lenientObject, requiredString, responseBoolean, responseInteger, successFlag } from '../core/schema-blocks.js';
import { NoParams } from '../core/shared-shapes.js';

/** The answer of the connection test (spec 4.3). */
export const Welcome = lenientObject({
  success: successFlag,
  message: z.string().optional(),
  info: z.string().optional(),
  next_step: z.string().optional(),
  provider: lenientObject({ id: responseInteger, name: z.string(), is_active: responseBoolean }),
  timestamp: z.string().optional(),
});
export type Welcome = z.infer<typeof Welcome>;

/** A site of the provider (spec 2.2). */
export const Site = lenientObject({
  id: responseInteger,
  name: z.string(),
  is_active: responseBoolean,
  created_at: z.string(),
});
export type Site = z.infer<typeof Site>;

/** The answer of the site list (spec 4.4). */
export const SiteList = lenientObject({
  success: successFlag,
  provider: lenientObject({ id: responseInteger, name: z.string() }),
  total_sites: responseInteger,
  sites: z.array(Site),
  timestamp: z.string().optional(),
});
export type SiteList = z.infer<typeof SiteList>;

/** Parameters of `listSites()`: the additional verification key sent as X-Key. */
export const SiteListParams = z.strictObject({
  /** The additional verification key, sent as X-Key and hashed with the key hash (spec 4.4, 5.1). Required. */
  key: requiredString(),
});
export type SiteListParams = z.input<typeof SiteListParams>;

export const welcomeEndpoint = defineEndpoint({
  operation: 'welcome',
  method: 'POST',
  path: '/welcome',
  hash: 'basic',
  readOnly: true,
  params: NoParams,
  response: Welcome,
});

export const listSitesEndpoint = defineEndpoint({
  operation: 'listSites',
  method: 'POST',
  path: '/sites',
  hash: 'key',
  readOnly: true,
  // The key travels in the X-Key header and the hash; the body is empty.
  params: NoParams,
  response: SiteList,
});
