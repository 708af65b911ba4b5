/*
 * What the spec does not show about the whole service. What it does not show about one
 * operation lives on the operation's row in src/tools/registry/index.ts (`gaps`).
 */

/** Gaps that concern the whole service rather than one operation. */
export const SPEC_GAPS: readonly string[] = [
  'HTTP status codes of errors other than those of 7.1 (7.4): every non-2xx answer and every `success: false` body is a failure.',
  'Responses to failed dealer authentication (7): read as 7.1.',
  'Rate limits (8): a 429 is a rate limit; only resendable calls are retried.',
  'Retry policy of callbacks (6.6): the same callback may arrive more than once; process each tracking_code + status once.',
  'Whether a retried callback is re-signed (6.6): payorch accepts a genuine callback well after it was signed.',
  'Site integration, the site-creation endpoint, and the fields of credential records (1, 2.2, 4.1): not described here.',
  'Versioning (9): the paths carry no version; this document describes the spec payorch implements.',
];
