import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  openEnum,
  requestAmount,
  requiredString,
  responseBoolean,
  responseDecimal,
  responseInteger,
  responseNumber,
  responseString,
  successFlag,
} from '../../src/internal/schema-blocks.js';

describe('answers are lenient', () => {
  test('a loose object keeps fields the spec does not list', () => {
    const Record = z.looseObject({ id: responseInteger() });
    expect(Record.parse({ id: 1, added_by_a_newer_server: { nested: true } })).toEqual({ id: 1, added_by_a_newer_server: { nested: true } });
  });

  test.each([
    [250, 250],
    [12.5, 12.5],
    ['250', 250],
    ['12.50', 12.5],
    [' -3 ', -3],
  ])('responseNumber reads %j as %j', (input, output) => {
    expect(responseNumber().parse(input)).toBe(output);
  });

  test.each(['', 'abc', '1e3', '12,5', '0x10', null, true])('responseNumber refuses %j', (input) => {
    expect(responseNumber().safeParse(input).success).toBe(false);
  });

  test.each([
    [7, 7],
    ['7', 7],
  ])('responseInteger reads %j as %j', (input, output) => {
    expect(responseInteger().parse(input)).toBe(output);
  });

  test.each([7.5, '7.5', 'seven'])('responseInteger refuses %j', (input) => {
    expect(responseInteger().safeParse(input).success).toBe(false);
  });

  test.each([
    ['1500.00', '1500.00'],
    [1500, '1500'],
    [12.75, '12.75'],
    [' 0.10 ', '0.10'],
  ])('responseDecimal hands %j over as the decimal string %j', (input, output) => {
    expect(responseDecimal().parse(input)).toBe(output);
  });

  test.each(['1.500,00', 'TRY 10', ''])('responseDecimal refuses %j', (input) => {
    expect(responseDecimal().safeParse(input).success).toBe(false);
  });

  test.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['true', true],
    ['false', false],
  ])('responseBoolean reads %j as %j', (input, output) => {
    expect(responseBoolean().parse(input)).toBe(output);
  });

  test.each([2, 'yes', 'TRUE', null])('responseBoolean refuses %j', (input) => {
    expect(responseBoolean().safeParse(input).success).toBe(false);
  });

  test.each([
    ['ORD-1', 'ORD-1'],
    [99812, '99812'],
  ])('responseString keeps %j as the text %j', (input, output) => {
    expect(responseString().parse(input)).toBe(output);
  });

  test('an open enum accepts its known values and a value the service adds later, but only strings', () => {
    const Status = openEnum(['pending', 'success']);
    expect(Status.parse('pending')).toBe('pending');
    expect(Status.parse('chargeback')).toBe('chargeback');
    expect(Status.safeParse(3).success).toBe(false);
    expect(Status.safeParse(undefined).success).toBe(false);
  });

  test('an open enum keeps its known values readable', () => {
    expect(openEnum(['pending', 'success']).options).toEqual(['pending', 'success']);
  });

  test('successFlag accepts true or nothing, never false', () => {
    expect(successFlag().parse(true)).toBe(true);
    expect(successFlag().parse(undefined)).toBeUndefined();
    expect(successFlag().safeParse(false).success).toBe(false);
  });
});

describe('requests are strict', () => {
  test('requestAmount refuses an amount below its minimum, a numeric string, NaN and Infinity', () => {
    const amount = requestAmount(1);
    expect(amount.parse(1)).toBe(1);
    expect(amount.parse(1.01)).toBe(1.01);
    expect(amount.safeParse(0.99).error?.issues[0]).toMatchObject({ code: 'too_small', message: 'must be at least 1' });
    for (const bad of ['5', Number.NaN, Number.POSITIVE_INFINITY]) expect(amount.safeParse(bad).success).toBe(false);
  });

  test('requiredString refuses empty and blank text but sends the value unchanged', () => {
    expect(requiredString().parse('  Ada ')).toBe('  Ada ');
    for (const bad of ['', '   ', '\t']) expect(requiredString().safeParse(bad).error?.issues[0]?.message).toBe('is required');
  });

  test('a strict object refuses a field it does not list', () => {
    expect(z.strictObject({ a: z.string() }).safeParse({ a: 'x', b: 1 }).error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['b'] });
  });
});
