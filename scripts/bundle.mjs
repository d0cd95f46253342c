#!/usr/bin/env node
// Bundles the published packages with esbuild from their tsc output: `node scripts/bundle.mjs bridge daemon` (the
// daemon's live page, daemon/page/*.ts, becomes daemon/web/app.js with it).
// The bridge becomes self-contained (its code, shared/, the SDK parts it uses, zod, ky): only @napi-rs/keyring, which
// ships prebuilt binaries, stays a dependency. The daemon takes shared/ in and keeps its npm dependencies external
// (better-sqlite3 is native; the rest install from the registry as usual). Each package's bin loads bundle/, which
// `npm run build` and the package's `prepack` write, so the repository runs the same files the tarball ships.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Per package: its entry points (tsc output) and what stays outside the bundle. */
const PACKAGES = {
  bridge: { entries: { cli: 'dist/cli.js', worker: 'dist/worker/cli.js' }, plugins: [withoutAjv(), withoutZodLocales(), withoutZodJsonSchema()] },
  daemon: { entries: { cli: 'dist/cli/main.js' }, plugins: [] },
};

/**
 * The SDK's Server builds an ajv validator for one thing: checking what a client answers to an elicitation request.
 * The bridge never asks the client for input, and ajv is a third of the SDK's code and of its start-up, so the
 * bridge's bundle gets the SDK's Node shims (@modelcontextprotocol/server/_shims: `process` and the default
 * validator) with a validator that says so if anything ever asks for it.
 */
function withoutAjv() {
  return {
    name: 'without-ajv',
    setup(b) {
      b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: 'server-shims', namespace: 'without-ajv' }));
      b.onLoad({ filter: /.*/, namespace: 'without-ajv' }, () => ({
        contents:
          "import process from 'node:process'; export { process }; " +
          "export class DefaultJsonSchemaValidator { getValidator() { throw new Error('roundtable-bridge validates no JSON Schema: it never asks the client for input'); } }",
        loader: 'js',
      }));
    },
  };
}

/**
 * zod's namespace object re-exports every locale (64 files of error messages in other languages); the bridge imports
 * that namespace, so a bundler cannot drop them. zod's own setup imports English directly, which is all the bridge uses.
 */
function withoutZodLocales() {
  return {
    name: 'without-zod-locales',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: 'locales', namespace: 'without-zod-locales' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'without-zod-locales' }, () => ({ contents: 'export {};', loader: 'js' }));
    },
  };
}

/**
 * zod's namespace object also carries its JSON Schema converters (to and from) and its schema compiler, which the
 * bundled bridge never runs: its tool list is built at bundle time (below), the SDK's low-level Server converts no
 * schema, and the bridge's zod runs jitless (bin/roundtable-bridge.js). Each of those modules becomes one with the
 * same export names whose functions say so if anything ever calls them: about 100 KB the bridge no longer compiles
 * at every start.
 */
function withoutZodJsonSchema() {
  const STUBBED = /[\\/]zod[\\/]v4[\\/](core[\\/](compile|json-schema-processors|json-schema-generator)|classic[\\/]from-json-schema)\.js$/;
  return {
    name: 'without-zod-json-schema',
    setup(b) {
      b.onLoad({ filter: STUBBED }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const names = new Set([...source.matchAll(/^export (?:async )?(?:function\*?|const|let|var|class) ([\w$]+)/gm)].map((m) => m[1]));
        for (const list of source.matchAll(/^export \{([^}]*)\}/gm)) for (const item of list[1].split(',')) if (item.trim()) names.add(item.trim().split(/\s+as\s+/).pop());
        const why = `roundtable-bridge carries no zod JSON Schema conversion or compiler (${basename(args.path)}): its tool list is built at bundle time`;
        const stub = `function unavailable() { throw new Error(${JSON.stringify(why)}); }`;
        return { contents: `${stub}\n${[...names].map((n) => `export const ${n} = unavailable;`).join('\n')}\n`, loader: 'js' };
      });
    },
  };
}

const names = process.argv.slice(2);
if (!names.length || names.some((n) => !PACKAGES[n])) {
  process.stderr.write(`usage: node scripts/bundle.mjs ${Object.keys(PACKAGES).join('|')} ...\n`);
  process.exit(2);
}
for (const name of names) await bundle(name, PACKAGES[name]);
// The daemon ships the live page: its modules (daemon/page/, TypeScript) become one script, web/app.js.
if (names.includes('daemon')) await bundlePage();

/**
 * The page's script for the browser: one ES module, no chunks (the CSP admits scripts of this origin only, and the
 * page loads one), minified. It takes in the few constants it needs from shared/ (limits, priorities), never zod.
 */
async function bundlePage() {
  const dir = join(ROOT, 'daemon');
  const result = await build({
    absWorkingDir: dir,
    entryPoints: ['page/main.ts'],
    bundle: true,
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    format: 'esm',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    write: false,
    outfile: 'web/app.js',
  });
  const [output] = result.outputFiles;
  const bytes = Buffer.from(output.contents);
  replaceChanged(join(dir, 'web'), new Map([['app.js', bytes]]), { prune: false });
  const inputs = Object.keys(result.metafile.inputs);
  if (inputs.some((input) => input.includes('node_modules'))) throw new Error(`the page must not bundle npm packages: ${inputs.filter((i) => i.includes('node_modules')).join(', ')}`);
  process.stderr.write(`daemon: web/app.js ${(bytes.length / 1024).toFixed(0)} KB (${(gzipSync(bytes).length / 1024).toFixed(1)} KB gzipped) from ${inputs.length} modules\n`);
}

/**
 * The tools/list entries, built here from shared/'s definitions (tsc output) and written into each bundle as a
 * constant (shared/src/mcp.ts): converting the tools' zod schemas to JSON Schema was a tenth of the bridge's start.
 */
async function listedTools() {
  const shared = await import(pathToFileURL(join(ROOT, 'shared/dist/index.js')).href);
  return shared.buildListedTools();
}

async function bundle(name, spec) {
  const dir = join(ROOT, name);
  // Whatever the package declares as a dependency is installed beside it, so it stays an import; the rest goes in.
  const external = Object.keys(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies ?? {});
  const outdir = join(dir, 'bundle');
  const result = await build({
    absWorkingDir: dir,
    entryPoints: spec.entries,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Modules loaded by dynamic import (subcommands) become chunks of their own, read only when that code path runs.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    external,
    // Whitespace and syntax only: names stay, so a stack trace still reads (minifying names measured no faster).
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: spec.plugins,
    define: { ROUNDTABLE_LISTED_TOOLS: JSON.stringify(await listedTools()) },
    metafile: true,
    write: false,
  });
  const files = new Map(result.outputFiles.map((f) => [basename(f.path), Buffer.from(f.contents)]));
  const licenses = licensesOf(dir, Object.keys(result.metafile.inputs));
  if (licenses) files.set('THIRD-PARTY-LICENSES.txt', Buffer.from(licenses));
  replaceChanged(outdir, files);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  process.stderr.write(`${name}: bundle/ ${(bytes / 1024).toFixed(0)} KB in ${Object.keys(result.metafile.outputs).length} files\n`);
}

/** The license text of every npm package whose code went into the bundle: their licenses ask for it to travel along. */
function licensesOf(dir, inputs) {
  const packages = new Set();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.add(join(dir, match[1]));
  }
  const parts = [];
  for (const pkgDir of [...packages].sort()) {
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    const file = readdirSync(pkgDir).find((f) => /^(licen[cs]e|copying)/i.test(f));
    parts.push(`${pkg.name} ${pkg.version} (${pkg.license ?? 'see its package'})\n\n${file ? readFileSync(join(pkgDir, file), 'utf8').trim() : 'No license file in the package.'}\n`);
  }
  return parts.length ? `Third-party code bundled into this package\n\n${parts.join('\n---\n\n')}` : undefined;
}

/**
 * Writes only the files whose bytes changed and removes the ones no longer made. Chunk names are content hashes, so
 * an unchanged build touches nothing: a bridge or daemon already running from bundle/ (a test, an agent app) keeps
 * finding the chunks it loads later.
 */
function replaceChanged(outdir, files, { prune = true } = {}) {
  mkdirSync(outdir, { recursive: true });
  for (const [name, bytes] of files) {
    const path = join(outdir, name);
    if (!existsSync(path) || !readFileSync(path).equals(bytes)) writeFileSync(path, bytes);
  }
  if (prune) for (const name of readdirSync(outdir)) if (!files.has(name)) rmSync(join(outdir, name), { force: true });
}
