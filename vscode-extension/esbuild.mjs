// Bundles src/extension.ts with vscode-languageclient into dist/extension.js (vscode is external).
// `--production` minifies and drops the source map (what `npm run package` ships).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');

await esbuild.build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  outfile: 'dist/extension.js',
  minify: production,
  sourcemap: !production,
  logLevel: 'warning',
});
