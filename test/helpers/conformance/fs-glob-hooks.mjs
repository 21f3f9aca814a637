// Module hooks for fs-glob-shim.mjs: "fs" imported from inside @modelcontextprotocol/conformance
// resolves to a module that re-exports node:fs and adds globSync when node:fs has none.
const SHIM = "toolgate-shim:fs";

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}

const source = `
import fs from "node:fs";
import path from "node:path";
export * from "node:fs";
export default fs;
function toRegExp(pattern) {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") { re += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*"; i += pattern[i + 2] === "/" ? 2 : 1; }
    else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^$()|{}\\[\\]\\\\]/g, "\\\\$&");
  }
  return new RegExp("^" + re + "$");
}
export function globSync(pattern, options = {}) {
  if (typeof fs.globSync === "function") return fs.globSync(pattern, options);
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const all = fs.readdirSync(cwd, { recursive: true }).map((p) => String(p).split(path.sep).join("/"));
  return all.filter((p) => patterns.some((pat) => toRegExp(pat).test(p)));
}
`;

export async function load(url, context, next) {
  if (url === SHIM) return { format: "module", shortCircuit: true, source };
  return next(url, context);
}
