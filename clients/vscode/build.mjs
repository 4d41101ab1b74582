// Bundles the extension (and its unit tests) with esbuild: one CommonJS file with vscode-languageclient inside,
// `vscode` left to the host. `node build.mjs` builds dist/extension.js; `node build.mjs test` builds out/test/.
import { build } from 'esbuild';
import fs from 'node:fs';

const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node18', sourcemap: true, logLevel: 'warning' };
if (process.argv[2] === 'test') {
  const tests = fs.readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  await build({ ...common, entryPoints: tests, outdir: 'out/test', external: ['vscode'] });
} else {
  await build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], minify: true });
}
