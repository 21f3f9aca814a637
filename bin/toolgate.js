#!/usr/bin/env node
// `toolgate` command. Runs the compiled CLI (dist/cli.js, from `npm run build`, which `npm install`
// also runs) when it is at least as new as every file under src/, so commands start in a fraction
// of a second; otherwise (sources edited since the build) it runs src/cli.ts through tsx.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function compiledIsCurrent() {
  let built;
  try {
    built = statSync(join(root, "dist/cli.js")).mtimeMs;
  } catch {
    return false;
  }
  const src = join(root, "src");
  return readdirSync(src, { recursive: true }).every((f) => statSync(join(src, f)).mtimeMs <= built);
}

if (compiledIsCurrent()) {
  await import(pathToFileURL(join(root, "dist/cli.js")).href);
} else {
  const tsx = join(root, "node_modules/tsx/dist/cli.mjs");
  const r = spawnSync(process.execPath, [tsx, join(root, "src/cli.ts"), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
