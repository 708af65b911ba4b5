// Their own module, free of schemas: the PostgreSQL entry and the inboxes need the window without
// loading zod.

/**
 * How old, in seconds, a genuine callback may be: 3 days. The spec does not say whether the
 * service re-signs a redelivered callback (spec 6.6), so a redelivery after an outage of the
 * receiver may carry its first signature; 3 days is the window over which Stripe retries its
 * webhooks. A replay inside the window is made harmless by once-only processing
 * (`createCallbackReceiver`), not by the clock. docs/decisions.md says why.
 */
export const DEFAULT_CALLBACK_MAX_AGE_SECONDS = 259_200;
/** How far ahead of this machine's clock a signed timestamp may be (the 5 minutes of spec 5.1). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
