import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, requiredString, responseBoolean, responseInteger, strictObject, successFlag } from '../internal/schema-blocks.js';
import { NoParams } from '../internal/shared-shapes.js';

/** The answer of the connection test (spec 4.3). */
export const Welcome = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** Welcome text with the provider's name (spec 4.3). */
  message: z.optional(z.string()),
  /** Informational text (spec 4.3). */
  info: z.optional(z.string()),
  /** What to do next, as text (spec 4.3). */
  next_step: z.optional(z.string()),
  /** The provider the credentials belong to (spec 2.2). */
  provider: lenientObject(() => ({
    /** The provider's id, an integer (spec 2.2). */
    id: responseInteger(),
    /** The provider's name (spec 2.2). */
    name: z.string(),
    /** Whether the provider is active (spec 2.2). */
    is_active: responseBoolean(),
  })),
  /** The service's time of the answer, `YYYY-MM-DD HH:MM:SS` (spec 2.1). */
  timestamp: z.optional(z.string()),
}));
export interface Welcome extends z.infer<typeof Welcome> {}

/** A site of the provider (spec 2.2). */
export const Site = /* @__PURE__ */ lenientObject(() => ({
  /** The site's id, an integer (spec 2.2). */
  id: responseInteger(),
  /** The site's name (spec 2.2). */
  name: z.string(),
  /** Whether the site is active (spec 2.2). */
  is_active: responseBoolean(),
  /** When the site was created, `YYYY-MM-DD HH:MM:SS` in service time (spec 2.2). */
  created_at: z.string(),
}));
export interface Site extends z.infer<typeof Site> {}

/** The answer of the site list (spec 4.4). */
export const SiteList = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** The provider the credentials belong to (spec 2.2). */
  provider: lenientObject(() => ({
    /** The provider's id, an integer (spec 2.2). */
    id: responseInteger(),
    /** The provider's name (spec 2.2). */
    name: z.string(),
  })),
  /** How many sites the provider has, an integer (spec 4.4). */
  total_sites: responseInteger(),
  /** The provider's sites (spec 4.4); no limit on their number is stated (spec 8). */
  sites: z.array(Site),
  /** The service's time of the answer, `YYYY-MM-DD HH:MM:SS` (spec 2.1). */
  timestamp: z.optional(z.string()),
}));
export interface SiteList extends z.infer<typeof SiteList> {}

/** Parameters of `sites.list()`: the additional verification key sent as X-Key. */
export const SiteListParams = /* @__PURE__ */ strictObject(() => ({
  /** The additional verification key, sent as X-Key and hashed with the key hash (spec 4.4, 5.1). Required. */
  key: requiredString(),
}));
export type SiteListParams = z.input<typeof SiteListParams>;

export const welcomeEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'welcome',
  method: 'POST',
  path: '/welcome',
  hash: 'basic',
  resendable: true,
  params: NoParams,
  response: Welcome,
});

export const listSitesEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'sites.list',
  method: 'POST',
  path: '/sites',
  hash: 'key',
  resendable: true,
  // The key travels in the X-Key header and the hash; the body is empty.
  params: NoParams,
  response: SiteList,
});
