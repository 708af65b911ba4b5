import { CallTables } from '../internal/resource.js';
import type * as ProviderCallsModule from './calls.js';

/** The provider API's endpoint rows and schemas, as calls.ts exports them. @internal */
export type ProviderCalls = typeof ProviderCallsModule;

/** The provider API's tables, imported by the first call of any provider client. @internal */
export const PROVIDER_CALLS = /* @__PURE__ */ new CallTables<ProviderCalls>(() => import('./calls.js'));
