import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface Size {
  readonly minified: number;
  readonly gzipped: number;
  /** Minified bytes per package (`payorch` for payorch's dist/, which includes its bundled zod). */
  readonly byPackage: Readonly<Record<string, number>>;
}

/**
 * `contents` bundled by esbuild with everything it imports, minified, ESM, then gzipped at level 9:
 * what the code adds to a user's bundle. Imports resolve from `resolveDir`.
 */
export async function bundleSize(contents: string, resolveDir: string, platform: 'node' | 'neutral' | 'edge' = 'node'): Promise<Size> {
  // 'edge': what a Cloudflare Worker or Vercel Edge build resolves (the conditions below).
  const edge = platform === 'edge' ? { mainFields: ['module', 'main'], conditions: ['workerd', 'worker', 'edge-light', 'browser'] } : {};
  const result = await build({
    stdin: { contents, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: platform === 'edge' ? 'neutral' : platform,
    ...edge,
    target: 'node20',
    write: false,
    // Not the repository's tsconfig.json: its `paths` map `payorch` to src/, and a user's bundler
    // resolves the package (dist/, through its exports map).
    tsconfigRaw: '{}',
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const byPackage: Record<string, number> = {};
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? (path.includes('dist/') ? 'payorch' : 'entry');
      byPackage[name] = (byPackage[name] ?? 0) + bytesInOutput;
    }
  }
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength, byPackage };
}
