// `npm run build`: compiles every src/**/*.ts to dist/**/*.js (then the cockpit into dist/cockpit/), one output file per source file in
// the same layout (so paths resolved from import.meta.url, such as ../../prisma/migrations, hold),
// for `node dist/main.js` in production: no TypeScript compiler in the running process.
// esbuild transpiles only (types are checked by `npm run typecheck`); each file is "bundled" with
// every import left external, which lets us rewrite the source's extensionless relative imports
// ("./config", "./storage") to what Node's ESM loader needs ("./config.js", "./storage/index.js").
import { build } from "esbuild";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { buildCockpit } from "./build-cockpit.mjs";

const root = join(import.meta.dirname, "..");
const src = join(root, "src");
const out = join(root, "dist");

const entryPoints = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
  .map((f) => join(src, f));

/** "./config" -> "./config.js", "./storage" -> "./storage/index.js" (relative to the importing file). */
function runtimeSpecifier(specifier, importer) {
  const base = resolve(dirname(importer), specifier);
  if (specifier.endsWith(".js")) return specifier;
  if (existsSync(`${base}.ts`)) return `${specifier}.js`;
  if (existsSync(base) && statSync(base).isDirectory() && existsSync(join(base, "index.ts"))) return `${specifier}/index.js`;
  throw new Error(`${relative(root, importer)}: cannot resolve ${specifier}`);
}

const externalImports = {
  name: "external-imports",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      if (args.path.startsWith(".")) return { path: runtimeSpecifier(args.path, args.importer), external: true };
      return { path: args.path, external: true };
    });
  },
};

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints,
  outdir: out,
  outbase: src,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  plugins: [externalImports],
});
console.log(`compiled ${entryPoints.length} files to ${relative(process.cwd(), out) || "."}/`);

// The web console served at /cockpit (scripts/build-cockpit.mjs).
await buildCockpit();
