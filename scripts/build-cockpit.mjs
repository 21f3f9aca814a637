// The cockpit's build (docs/cockpit.md, docs/decisions/0044-cockpit-ui-stack.md), run by
// scripts/build.mjs after the server: typed documents (GraphQL Code Generator, codegen.ts), then
// Vite (cockpit/vite.config.ts) into dist/cockpit/, then every file precompressed (brotli and gzip,
// kept only when smaller) so the server sends bytes as they lie on disk, and a report of the initial
// load (the page plus the script, style and preload files it names) against the 300 kB budget.
// The build tools are devDependencies: an install without them (--omit=dev) builds the server only
// and says so; /cockpit then answers that the cockpit is not built.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = join(import.meta.dirname, "..");
const out = join(root, "dist", "cockpit");
const require = createRequire(import.meta.url);

/** Budget of the initial load, gzipped (issue 24; checked by test/cockpit-serving.test.ts). */
export const INITIAL_LOAD_BUDGET_BYTES = 300 * 1024;
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;

function resolvable(name) {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

function codegen() {
  const bin = join(root, "node_modules", "@graphql-codegen", "cli", "esm", "bin.js");
  const r = spawnSync(process.execPath, [bin, "--config", "codegen.ts", "--silent"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`graphql-codegen failed:\n${r.stdout}${r.stderr}`);
}

function precompress(dir) {
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = join(dir, name);
    if (!COMPRESSIBLE.test(name) || !statSync(file).isFile()) continue;
    const plain = readFileSync(file);
    const br = brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length } });
    const gz = gzipSync(plain, { level: 9 });
    if (br.length < plain.length) writeFileSync(`${file}.br`, br);
    if (gz.length < plain.length) writeFileSync(`${file}.gz`, gz);
  }
}

/** The files a first visit downloads: index.html and the assets it names (scripts, styles, preloads). */
export function initialLoadFiles(html) {
  const names = new Set(["index.html"]);
  for (const m of html.matchAll(/(?:src|href)="\/cockpit\/(assets\/[^"]+)"/g)) names.add(m[1]);
  return [...names];
}

function report() {
  const html = readFileSync(join(out, "index.html"), "utf8");
  const files = initialLoadFiles(html).map((name) => {
    const plain = readFileSync(join(out, name));
    return { name, bytes: plain.length, gzip_bytes: gzipSync(plain, { level: 9 }).length };
  });
  const gzipBytes = files.reduce((n, f) => n + f.gzip_bytes, 0);
  const result = { initial_load: { files, gzip_bytes: gzipBytes }, budget_gzip_bytes: INITIAL_LOAD_BUDGET_BYTES, within_budget: gzipBytes <= INITIAL_LOAD_BUDGET_BYTES };
  writeFileSync(join(out, "build-report.json"), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

export async function buildCockpit() {
  if (!resolvable("vite") || !resolvable("@graphql-codegen/cli")) {
    console.log("cockpit: not built (its build tools are devDependencies, not installed here); /cockpit will say so");
    return;
  }
  codegen();
  const { build } = await import("vite");
  await build({ configFile: join(root, "cockpit", "vite.config.ts"), logLevel: "warn" });
  precompress(out);
  const r = report();
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  const verdict = r.within_budget ? "within" : "OVER";
  console.log(`cockpit: built to ${relative(process.cwd(), out) || "."}/; initial load ${kb(r.initial_load.gzip_bytes)} gzipped (${verdict} the ${kb(INITIAL_LOAD_BUDGET_BYTES)} budget)`);
}
