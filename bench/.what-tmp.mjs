import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
for (const file of ['index.js', 'webhooks/index.js']) {
const r = await build({ stdin: { contents: `export { verifyCallback } from ${JSON.stringify(process.argv[2] + '/' + file)};`, resolveDir: '/work/wt/receive', loader: 'js' }, bundle: true, minify: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], conditions: ['workerd', 'worker', 'edge-light', 'browser'], target: 'node20', write: false, logLevel: 'silent', tsconfigRaw: '{}' });
const t = r.outputFiles[0].contents;
console.log(file, (gzipSync(t, { level: 9 }).byteLength / 1024).toFixed(2), 'KiB', t.byteLength, /__esm/.test(r.outputFiles[0].text) ? 'esm-wrapped' : '');
}
