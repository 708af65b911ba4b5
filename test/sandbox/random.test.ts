import { describe, expect, test } from 'vitest';
import { SeededRandom } from '../../src/tools/sandbox/random.js';

describe('SeededRandom', () => {
  test('the same seed draws the same sequence; another seed another', () => {
    const draw = (seed: string | number) => {
      const random = new SeededRandom(seed);
      return [random.alphanumeric(12), random.digits(6), random.hex(8), random.int(1, 1000)];
    };
    expect(draw('x')).toEqual(draw('x'));
    expect(draw(7)).toEqual(draw(7));
    expect(draw('x')).not.toEqual(draw('y'));
  });

  test('draws stay within their alphabet and bounds', () => {
    const random = new SeededRandom('bounds');
    for (let index = 0; index < 500; index++) {
      const value = random.int(3, 5);
      expect(value >= 3 && value <= 5).toBe(true);
      expect(random.next()).toBeLessThan(1);
    }
    expect(random.alphanumeric(200)).toMatch(/^[A-Za-z0-9]{200}$/);
    expect(random.hex(200)).toMatch(/^[0-9a-f]{200}$/);
    expect(random.pick(['only'])).toBe('only');
  });
});
