/*
 * What the `payorch` command needs of the library that no entry exports: the endpoint table, the
 * wire types the OpenAPI document shows, the sandbox's option declarations and its own view of
 * its records, and the queue adapters' dead letters over an engine the command loads from the
 * merchant's project (none of these modules imports an engine). Built with the library's ESM entries into
 * dist/internal/cli.js, which shares their chunks, so the command runs the same modules as the
 * entries it imports instead of copies. Internal: no path of package.json `exports` names it, and
 * it may change in any release.
 */
export { API_ENDPOINTS, endpointPath } from './registry/index.js';
export { wireTypes } from '../internal/schema-blocks.js';
export { welcomeEndpoint } from '../provider/account.js';
export { redactText, secretForms } from '../errors/api-error.js';
export { printable } from '../errors/printable.js';
export { ENVIRONMENT_NAMES } from '../core/environment.js';
export { settingsEndpoint } from '../dealer/settings.js';
export { SANDBOX_OPTIONS } from './sandbox/options.js';
export { KINDS } from './sandbox/record-kinds.js';
export { callbackBody, callbackFields, callbackPayload } from './sandbox/callback-payloads.js';
export { CONTROL_PREFIX } from './sandbox/route.js';
export { ROTATE_KEYS_OPTIONS } from './sandbox/keys.js';
export { DEAD_LETTER_PAGE_LIMIT } from '../queues/dead-letters.js';
export { POSTGRES_REPLAY_BATCH, checkDeadLetterTable, deadLettersIn } from '../queues/postgres-dead-letters.js';
export { PGBOSS_CREATE_DEAD_LETTER_TABLE, PGBOSS_DEAD_LETTER_TABLE } from '../queues/pg-boss/dead-letter-table.js';
export { inTransaction } from '../queues/pg-boss/job-data.js';
export { DEAD_LETTER_TABLE_OPTION, deadLetterTableName } from '../postgres/dead-letter-table.js';
export { BULLMQ_DEFAULTS, BULLMQ_REPLAY_BATCH, bullMQDeadLetters } from '../queues/bullmq/dead-letters.js';
export { sqliteMigrationSql } from '../inboxes/sqlite-dialect/versions.js';
export { SQLITE_TABLE_OPTION, sqliteInboxTable } from '../inboxes/sqlite-dialect/inbox-sql.js';
export { D1_DEAD_LETTERS_TABLE, DEAD_LETTERS_TABLE_OPTION } from '../queues/cloudflare-queues/dead-letters.js';
