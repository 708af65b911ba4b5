import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { Context, ContextManager, Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect } from 'vitest';
import { secretForms } from '../../src/errors/api-error.js';

/**
 * The context manager of @opentelemetry/context-async-hooks in a few lines: what makes
 * `startActiveSpan` put its span in the context that code inside it (a fetch instrumentation,
 * a handler) reads. Without one, the API's no-op manager makes every span a root.
 */
class AsyncLocalContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(active: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.#storage.run(active, () => fn.apply(thisArg, args));
  }
  bind<T>(_active: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

/** The OpenTelemetry SDK of the docs, exporting to memory; the context manager is set for the file. */
export function memoryTracing(): { tracer: Tracer; exporter: InMemorySpanExporter; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalContextManager());
  });
  afterAll(async () => {
    context.disable();
    await provider.shutdown();
  });
  return { tracer: provider.getTracer('payorch-test'), exporter, spans: () => exporter.getFinishedSpans() };
}

/** Everything a span shows to a trace backend, as text. */
export function spanText(span: ReadableSpan): string {
  return JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })), status: span.status });
}

/** Fails when any form of any secret (as sent, either case, JSON-escaped, URL-encoded) is in a span. */
export function expectNoSecrets(spans: readonly ReadableSpan[], secrets: readonly string[]): void {
  expect(spans.length).toBeGreaterThan(0);
  const forms = secretForms(secrets);
  expect(forms.length).toBeGreaterThan(0);
  for (const span of spans) {
    const text = spanText(span);
    for (const form of forms) expect(text, `span ${span.name}`).not.toContain(form);
  }
}

export const SPAN_KIND = { CLIENT: 2, CONSUMER: 4 } as const;
export const STATUS = { UNSET: 0, ERROR: 2 } as const;
