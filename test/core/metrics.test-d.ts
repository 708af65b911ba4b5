import type { Meter } from '@opentelemetry/api';
import { expectTypeOf, test } from 'vitest';
import type { CallbackReceiverOptions, MemoryInboxContext, MeterLike } from '../../src/index.js';

// payorch declares the members it calls instead of importing @opentelemetry/api's types, so
// users need not install it: the real Meter must stay assignable to them.
test('the OpenTelemetry API’s Meter is a MeterLike, and the receiver’s meter option takes one', () => {
  expectTypeOf<Meter>().toExtend<MeterLike>();
  expectTypeOf<Meter>().toExtend<NonNullable<CallbackReceiverOptions<MemoryInboxContext>['meter']>>();
});

test('an object without the instruments payorch creates is not a MeterLike', () => {
  expectTypeOf<{ createCounter: Meter['createCounter'] }>().not.toExtend<MeterLike>();
  expectTypeOf<Omit<Meter, 'createObservableUpDownCounter'>>().not.toExtend<MeterLike>();
  expectTypeOf<Omit<Meter, 'createHistogram'> & { createHistogram(name: string): { add(value: number): void } }>().not.toExtend<MeterLike>();
});
