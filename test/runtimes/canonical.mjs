// A job's canonical form, written again here from its definition (src/webhooks/seal.ts: members
// sorted, no spaces, undefined left out), so that the runtime checks compute a job's seal without
// the code under test. Plain JavaScript, for every runtime.
export const canonical = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : typeof value === 'object' && value !== null
      ? `{${Object.keys(value).filter((name) => value[name] !== undefined).sort().map((name) => `${JSON.stringify(name)}:${canonical(value[name])}`).join(',')}}`
      : JSON.stringify(value);
