// Builds every case page of lexbench's dynamic suite into one self-contained directory per case:
//   npm run build -- --outDir DIR  (or: npm run build -- DIR)  ->  DIR/<case-id>/index.html plus every resource its first load requests
// Each case is its own Vite build (root cases/<case-id>/, base './'), so a case directory holds its own
// scripts, styles and public files (api/*.json, images, frames) and every URL in it is relative to the page:
// the same directory works under any replay prefix. Output is deterministic (content-hashed names, no
// timestamps) and the build needs no network once `npm ci` has run.
// A `file` case (a document delivered as bytes) has document.mjs instead of pages: its default export
// { name, bytes() } is written as DIR/<case-id>/<name>, the only file there, generated here rather than
// committed.
import { readdirSync, existsSync, statSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

function parseArgs(argv) {
  let outDir = null;
  let positional = null;
  const only = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--outDir' || arg === '--out-dir') outDir = argv[++i];
    else if (arg.startsWith('--outDir=')) outDir = arg.slice('--outDir='.length);
    else if (arg === '--case') only.push(argv[++i]);
    else if (!arg.startsWith('-') && !positional) positional = arg; // `npm run build -- DIR` works too
    else throw new Error(`unknown argument ${JSON.stringify(arg)}: use [--outDir] DIR [--case CASE-ID ...]`);
  }
  if (outDir && positional) throw new Error(`two output directories: --outDir ${outDir} and ${positional}`);
  outDir = outDir || positional || 'dist';
  return { outDir: resolve(process.cwd(), outDir), only };
}

// A case whose server sends rendered markup (hydration) has ssr.js exporting render(): its HTML replaces
// the <!--ssr-outlet--> comment of index.html at build time, as a server would have sent it.
function ssrPlugin(caseDir) {
  const module = join(caseDir, 'ssr.js');
  if (!existsSync(module)) return [];
  return [{
    name: 'lexbench-ssr-outlet',
    async transformIndexHtml(html) {
      const { render } = await import(pathToFileURL(module).href);
      const markup = await render();
      if (!html.includes('<!--ssr-outlet-->')) throw new Error(`${caseDir}/index.html has no <!--ssr-outlet-->`);
      return html.replace('<!--ssr-outlet-->', () => markup);
    },
  }];
}

async function buildDocument(root, caseId, outDir) {
  const { default: document } = await import(pathToFileURL(join(root, 'document.mjs')).href);
  const target = join(outDir, caseId);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, document.name), document.bytes());
}

async function buildCase(caseId, outDir) {
  const root = join(here, 'cases', caseId);
  if (existsSync(join(root, 'document.mjs'))) return buildDocument(root, caseId, outDir);
  const input = Object.fromEntries(
    readdirSync(root).filter((name) => name.endsWith('.html')).sort().map((name) => [name.slice(0, -5), join(root, name)]),
  );
  await build({
    root,
    base: './',
    configFile: false,
    logLevel: 'warn',
    publicDir: join(root, 'public'),
    plugins: ssrPlugin(root),
    oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
    // Vue's compile-time flags, set as a Vue app's own build would (no devtools, no mismatch details).
    define: { __VUE_OPTIONS_API__: 'true', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
    resolve: { dedupe: ['react', 'react-dom', 'vue', 'lit'] },
    build: {
      outDir: join(outDir, caseId),
      emptyOutDir: true,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
      chunkSizeWarningLimit: 4096,
      rollupOptions: {
        input,
        // React libraries mark modules 'use client'; the directive means nothing in a client-only bundle.
        onwarn(warning, warn) { if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning); },
      },
    },
  });
}

const { outDir, only } = parseArgs(process.argv.slice(2));
const all = readdirSync(join(here, 'cases')).filter((name) => statSync(join(here, 'cases', name)).isDirectory()).sort();
const unknown = only.filter((caseId) => !all.includes(caseId));
if (unknown.length) throw new Error(`no case directory for ${unknown.join(', ')} under ${join(here, 'cases')}`);
const selected = only.length ? all.filter((caseId) => only.includes(caseId)) : all;
const started = Date.now();
for (const caseId of selected) await buildCase(caseId, outDir);
console.log(`built ${selected.length} case pages into ${outDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
