// The app lives in node_modules/.cache of the payorch repository: keep Next.js from taking the
// repository (and its lock file) for the workspace root.
const here = import.meta.dirname;
export default { outputFileTracingRoot: here, turbopack: { root: here } };
