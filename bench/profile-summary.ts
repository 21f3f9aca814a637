// `npx tsx bench/profile-summary.ts <file.cpuprofile> [top] [pattern...]`: where a V8 CPU profile
// (node --cpu-prof; `BENCH_CPU_PROF=<dir> npm run bench`) spends its time, as self time per
// package or source file (node_modules/<package>, src/<file>, node:internal/<module>, GC, idle),
// the top functions, and, per pattern (a regular expression over "function owner"), the inclusive
// time of the samples with such a frame on their stack (e.g. "urlencodedParser|jsonParser").
// Used to decide the hot-path changes in docs/benchmarks.md.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function owner(url: string, fn: string): string {
  if (!url) return fn === "(garbage collector)" || fn === "(idle)" || fn === "(program)" ? fn : `(native) ${fn}`;
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith("node:")) return url;
  const src = url.indexOf("/src/");
  return src >= 0 ? url.slice(src + 1) : url;
}

const [file, topArg, ...patterns] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary <file.cpuprofile> [top]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)").reduce((a, [, t]) => a + t, 0);
const busy = total - idle;
const groups = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, t] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === "(idle)") continue;
  const o = owner(url, functionName);
  groups.set(o, (groups.get(o) ?? 0) + t);
  const key = `${functionName || "(anonymous)"} ${o}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + t);
}
const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
console.log(`busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s sampled; self time by owner:`);
for (const [o, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(`${pct(t)}  ${o}`);
console.log("\ntop functions (self):");
for (const [f, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 30))) console.log(`${pct(t)}  ${f}`);

if (patterns.length > 0) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frame = (id: number) => {
    const { functionName, url } = byId.get(id)!.callFrame;
    return `${functionName || "(anonymous)"} ${owner(url, functionName)}`;
  };
  console.log("\ninclusive (samples with a matching frame on the stack):");
  for (const p of patterns) {
    const re = new RegExp(p);
    let t = 0;
    profile.samples.forEach((id, i) => {
      if (byId.get(id)!.callFrame.functionName === "(idle)") return;
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if (re.test(frame(at))) {
          t += profile.timeDeltas[i] ?? 0;
          return;
        }
      }
    });
    console.log(`${pct(t)}  ${p}`);
  }
}
