import { CallTables } from '../internal/resource.js';
import type * as DealerCallsModule from './calls.js';

/** The dealer API's endpoint rows and schemas, as calls.ts exports them. @internal */
export type DealerCalls = typeof DealerCallsModule;

/** The dealer API's tables, imported by the first call of any dealer client. @internal */
export const DEALER_CALLS = /* @__PURE__ */ new CallTables<DealerCalls>(() => import('./calls.js'));
