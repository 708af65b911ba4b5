// Uses payorch/sandbox in a process where msw cannot be imported; prints what happened as JSON.
import { createSandbox } from '../../../src/tools/sandbox/index.js';

const sandbox = createSandbox();
const inProcess = await sandbox.fetch('https://sandbox.payorch.test/__sandbox/accounts');
const running = await sandbox.listen();
const overHttp = await fetch(`${running.url}/__sandbox/accounts`);
await running.close();
// mswHandlers() builds with the `http` it is given, so a stand-in shows it needs no msw either.
const handlers = sandbox.mswHandlers({ all: (path: string) => path });
console.log(JSON.stringify({ inProcess: inProcess.status, overHttp: overHttp.status, handlers }));
