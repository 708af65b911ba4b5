// Service-worker syntax, as Vercel's edge-runtime package runs a script.
import { handle } from './checks.mjs';

addEventListener('fetch', (event) => event.respondWith(handle(event.request)));
