import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { MetricData } from '@opentelemetry/sdk-metrics';

/*
 * A PromQL evaluator for the one shape of rule docs/observability.md documents, no more:
 *
 *   sum(increase(metric{label="v", label=~"a|b"}[15m])) > 0   clauses
 *   joined by `unless` (binding tighter) and `or`
 *
 * over counter points collected from the OpenTelemetry SDK, named as the OTLP-to-Prometheus
 * translation names them (`payorch.callbacks` → `payorch_callbacks_total`, `payorch.outcome` →
 * `payorch_outcome`). Each counter starts within the window, so its `increase` is its value.
 * Anything else throws: a guide edited into syntax this does not know fails its test rather
 * than passing unread.
 */

/** A counter's point as Prometheus stores it. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const promName = (name: string): string => name.replace(/[^A-Za-z0-9_]/g, '_');

/** The monotonic counters among `metrics`, as Prometheus samples. */
export function samplesOf(metrics: Iterable<MetricData>): Sample[] {
  return [...metrics].flatMap((metric) =>
    metric.dataPointType === DataPointType.SUM && metric.isMonotonic
      ? metric.dataPoints.map((point) => ({
          name: `${promName(metric.descriptor.name)}_total`,
          labels: Object.fromEntries(Object.entries(point.attributes).map(([key, value]) => [promName(key), String(value)])),
          value: point.value,
        }))
      : [],
  );
}

/** The one ```promql block of `guide`. */
export function promqlBlock(guide: string): string {
  const blocks = [...guide.matchAll(/```promql\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  if (blocks.length !== 1) throw new Error(`expected one promql block, found ${blocks.length}`);
  return blocks[0] ?? '';
}

type Matcher = { readonly label: string; readonly regex: boolean; readonly value: string };

/** Whether `rule` returns any series over `samples` (an alert rule fires when it does). */
export function fires(rule: string, samples: readonly Sample[]): boolean {
  const text = rule.replace(/\s+/g, ' ').trim();
  let at = 0;
  const take = (pattern: RegExp): RegExpExecArray | undefined => {
    const sticky = new RegExp(pattern.source, 'y');
    sticky.lastIndex = at;
    const match = sticky.exec(text);
    if (match !== null) at = sticky.lastIndex;
    return match ?? undefined;
  };
  const expect = (pattern: RegExp): RegExpExecArray => {
    const match = take(pattern);
    if (match === undefined) throw new Error(`unsupported PromQL at ${at}: ${JSON.stringify(text.slice(at, at + 40))} (expected ${pattern.source})`);
    return match;
  };

  // One clause: true when its sum exists and is above 0 (an empty vector, or 0, is no series).
  const clause = (): boolean => {
    expect(/sum\(increase\(/);
    const metric = expect(/([A-Za-z_:][A-Za-z0-9_:]*)\{ ?/)[1];
    const matchers: Matcher[] = [];
    do {
      const [, label = '', operator, value = ''] = expect(/([A-Za-z_][A-Za-z0-9_]*) ?(=~|=) ?"([^"\\]*)" ?/);
      if (operator === '=~' && !/^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$/.test(value)) throw new Error(`unsupported regex ${value}: only alternatives of words`);
      matchers.push({ label, regex: operator === '=~', value });
    } while (take(/, ?/) !== undefined);
    expect(/\}\[15m\]\)\) ?> ?0/);
    const matching = samples.filter((sample) => sample.name === metric && matchers.every(({ label, regex, value }) => (regex ? value.split('|').includes(sample.labels[label] ?? '') : sample.labels[label] === value)));
    return matching.length > 0 && matching.reduce((sum, sample) => sum + sample.value, 0) > 0;
  };
  // `unless` binds tighter than `or`, as in PromQL; with `sum` both sides have no labels.
  const term = (): boolean => {
    let result = clause();
    while (take(/ ?unless /) !== undefined) result = clause() ? false : result;
    return result;
  };
  let result = term();
  while (take(/ ?or /) !== undefined) result = term() || result;
  if (at !== text.length) throw new Error(`unsupported PromQL at ${at}: ${JSON.stringify(text.slice(at, at + 40))}`);
  return result;
}
