/** `createSandbox().listen()` from `payorch/sandbox` in its own process, announcing its URL and accounts. */
import { announce } from '../lib/processes.js';
import { loadSandbox } from '../lib/sdk.js';

const module = await loadSandbox();
if (module === undefined) throw new Error('payorch/sandbox is not available');
const sandbox = module.createSandbox();
const { url } = await sandbox.listen({ port: 0, host: '127.0.0.1' });
announce(url, sandbox.accounts);
