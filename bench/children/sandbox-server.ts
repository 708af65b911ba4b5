/** `createSandbox().listen()` from `payorch/sandbox` in its own process, announcing its URL and accounts. */
import { announce } from '../lib/processes.js';
import { sandbox } from '../lib/sdk.js';

const instance = sandbox.createSandbox();
const { url } = await instance.listen({ port: 0, host: '127.0.0.1' });
announce(url, instance.accounts);
