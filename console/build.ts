/**
 * Bundles the console (and the API reference page) with esbuild into console/dist/: content-hashed files under
 * assets/ and manifest.json naming each entry's script and stylesheet, which the service reads at start.
 * `npm install` runs it (the `prepare` script); `npm run build:console` runs it alone.
 */
import { build, type Plugin } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, 'dist');
const ENTRIES: Record<string, string> = {
  console: join(here, 'src', 'main.tsx'),
  'api-docs': join(here, 'src', 'api-docs.tsx'),
};

/**
 * The logo Redoc's menu shows beside "API docs by Redocly": an image it fetches from its CDN, with no option to drop
 * it. The element that loads it, as Redoc's bundle writes it.
 */
const REDOC_REMOTE_LOGO =
  /\w+\.createElement\("img",\{alt:"redocly logo",onError:\(\)=>\w+\(!1\),src:"https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg"\}\)/;

/**
 * The API reference page asks nothing of another origin (its CSP would refuse it anyway), so Redoc's bundle is loaded
 * without that image: the attribution stays, as text. A Redoc that no longer loads it that way stops the build, to be
 * looked at again.
 */
const redocWithoutRemoteLogo: Plugin = {
  name: 'redoc-without-remote-logo',
  setup(context) {
    context.onLoad({ filter: /[\\/]redoc[\\/]bundles[\\/]redoc(?:\.browser)?\.lib\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!REDOC_REMOTE_LOGO.test(source))
        throw new Error(`${args.path} no longer loads its logo as expected: check what it fetches now`);
      return { contents: source.replace(REDOC_REMOTE_LOGO, 'null'), loader: 'js' };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: ENTRIES,
  outdir: join(outdir, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  metafile: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'linked',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [redocWithoutRemoteLogo],
});

const toDist = (path: string) => relative(outdir, join(process.cwd(), path)).split('\\').join('/');
const entries: Record<string, { script: string; styles: string[] }> = {};
for (const [path, output] of Object.entries(result.metafile.outputs)) {
  if (!output.entryPoint) continue;
  const name = Object.entries(ENTRIES).find(([, source]) => relative(process.cwd(), source) === output.entryPoint)?.[0];
  if (!name) continue;
  entries[name] = { script: toDist(path), styles: output.cssBundle ? [toDist(output.cssBundle)] : [] };
}
const files = Object.keys(result.metafile.outputs).map(toDist);
await mkdir(outdir, { recursive: true });
await writeFile(join(outdir, 'manifest.json'), `${JSON.stringify({ entries, files }, null, 2)}\n`);
console.log(
  `console bundle: ${files.length} files in ${relative(process.cwd(), outdir)} (${Object.keys(entries)
    .map((entry) => `${entry}: ${basename(entries[entry]!.script)}`)
    .join(', ')})`,
);
