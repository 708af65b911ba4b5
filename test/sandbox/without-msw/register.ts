// Makes msw unresolvable in this process, as in a project that did not install it. The hooks run
// in Node's loader thread, so they are plain JavaScript, registered from a data: URL.
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier === 'msw' || specifier.startsWith('msw/')) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
