import type { Span, Tracer } from '@opentelemetry/api';
import { expectTypeOf, test } from 'vitest';
import type { CallbackReceiverOptions, ClientOptions, MemoryInboxContext, SpanLike, TracerLike } from '../../src/index.js';

// payorch declares the members it calls instead of importing @opentelemetry/api's types, so
// users need not install it: the real Tracer and Span must stay assignable to them.
test('the OpenTelemetry API’s Tracer is a TracerLike, and its Span a SpanLike', () => {
  expectTypeOf<Tracer>().toExtend<TracerLike>();
  expectTypeOf<Span>().toExtend<SpanLike>();
});

test('the tracer option of the clients and the receiver takes a Tracer', () => {
  expectTypeOf<Tracer>().toExtend<NonNullable<ClientOptions['tracer']>>();
  expectTypeOf<Tracer>().toExtend<NonNullable<CallbackReceiverOptions<MemoryInboxContext>['tracer']>>();
});

test('an object without startActiveSpan, or with another shape of it, is not a TracerLike', () => {
  expectTypeOf<{ startSpan(name: string): Span }>().not.toExtend<TracerLike>();
  expectTypeOf<{ startActiveSpan(name: string): void }>().not.toExtend<TracerLike>();
});
