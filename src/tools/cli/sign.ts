import { requestHash } from '../../internal/signer.js';
import type { Signing } from '../../internal/signer.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import { COMMON_OPTIONS, CREDENTIAL_OPTIONS, EXIT_OK, KEY_VARIABLES, UsageError, accountKeys, emit, parse, requireSetting, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';

const USAGE = `Usage: payorch sign basic|key|credential [options]

Prints the headers of a signed request (spec 5.1) as curl -H arguments: X-Api-Key,
X-Timestamp, X-Hash, and X-Key (key hash) or X-Credential-Key (credential hash). The
timestamp is valid for 5 minutes.

Options:
  --key <k>                the additional verification key of the key hash (default $PAYORCH_SITES_KEY)
  --credential-key <c>     the site credential key of the credential hash (default $PAYORCH_CREDENTIAL_KEY)
  --dealer                 sign for the Dealer API (default keys $PAYORCH_DEALER_API_KEY and
                           $PAYORCH_DEALER_SECRET_KEY; the dealer uses the basic hash only)
  --api-key <key>          API key (default $PAYORCH_PROVIDER_API_KEY)
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY')}
  --json                   print the headers as a JSON object
  -h, --help               show this text

Example:
  curl -X POST "$PAYORCH_BASE_URL/api/provider/welcome" $(payorch sign basic)`;

const HASHES = ['basic', 'key', 'credential'] as const;

// Tab is the one control character a header value may hold.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

function signing(hash: string | undefined, values: { readonly key?: string | undefined; readonly 'credential-key'?: string | undefined }, io: Io): Signing {
  switch (hash) {
    case 'basic':
      if (values.key !== undefined || values['credential-key'] !== undefined) throw new UsageError('the basic hash covers no extra key: leave out --key and --credential-key');
      return { hash };
    case 'key':
      if (values['credential-key'] !== undefined) throw new UsageError('--credential-key belongs to the credential hash, not the key hash');
      return { hash, key: requireSetting(values.key, io, '--key', ENVIRONMENT_NAMES.sitesKey) };
    case 'credential':
      if (values.key !== undefined) throw new UsageError('--key belongs to the key hash, not the credential hash');
      return { hash, credentialKey: requireSetting(values['credential-key'], io, '--credential-key', ENVIRONMENT_NAMES.credentialKey) };
    case undefined:
    default:
      throw new UsageError(`name the hash: ${HASHES.join(', ')}${hash === undefined ? '' : ` (not ${hash})`}`);
  }
}

/**
 * One shell word: `Name:value` (curl needs no space after the colon), quoted only when it must be,
 * so that the output works both pasted and unquoted in `$(payorch sign basic)`.
 */
const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...COMMON_OPTIONS, ...CREDENTIAL_OPTIONS, key: { type: 'string' }, 'credential-key': { type: 'string' }, dealer: { type: 'boolean', default: false } },
    true,
  );
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 1) throw new UsageError(`one hash at a time: ${positionals.join(' ')}`);
  const chosen = signing(positionals[0], values, io);
  if (values.dealer && chosen.hash !== 'basic') throw new UsageError('the Dealer API signs every request with the basic hash (spec 5.2)');
  const keys = await accountKeys(values, io, values.dealer ? 'dealer' : 'provider');
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'X-Api-Key': keys.apiKey,
    'X-Timestamp': timestamp,
    'X-Hash': requestHash(keys, chosen, timestamp),
    ...(chosen.hash === 'key' ? { 'X-Key': chosen.key } : {}),
    ...(chosen.hash === 'credential' ? { 'X-Credential-Key': chosen.credentialKey } : {}),
    'Content-Type': 'application/json',
  };
  const sources: Readonly<Record<string, string>> = {
    'X-Api-Key': `--api-key or ${KEY_VARIABLES[values.dealer ? 'dealer' : 'provider'].apiKey}`,
    'X-Key': `--key or ${ENVIRONMENT_NAMES.sitesKey}`,
    'X-Credential-Key': `--credential-key or ${ENVIRONMENT_NAMES.credentialKey}`,
  };
  for (const [name, value] of Object.entries(headers)) {
    // curl would split the line into a header of its own, and the hash would cover a value the
    // service never sees; the clients refuse the same values before sending.
    if (CONTROL.test(value)) throw new UsageError(`${name} (from ${sources[name] ?? name}) contains a carriage return, line feed or other control character, which an HTTP header cannot carry: remove it (a file saved with Windows line endings?)`);
  }
  emit(
    io,
    values.json,
    () => Object.entries(headers).map(([name, value]) => `-H ${shellWord(`${name}:${value}`)}`).join(' '),
    () => headers,
  );
  return EXIT_OK;
}

export const signCommand: Command = { usage: USAGE, run };
