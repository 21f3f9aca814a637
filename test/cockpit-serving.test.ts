// How Toolgate serves the cockpit (src/rest/cockpit.ts, docs/cockpit.md), over real HTTP against
// the built dist/cockpit/: hashed assets immutable for a year and sent precompressed (brotli, gzip)
// with bytes that decompress to the file on disk; the page no-store with a CSP that allows no inline
// script, and no inline script in it; the page answered for every client route (SPA fallback); and
// the build's report of the initial load, recomputed from the files, within the 300 kB budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { request as httpRequest } from "node:http";
import { COCKPIT_CSP, defaultCockpitDir } from "../src/rest/cockpit";
import { startToolgate, type Harness } from "./helpers/harness";

const dir = defaultCockpitDir();
let h: Harness;

beforeAll(async () => {
  if (!existsSync(join(dir, "index.html"))) throw new Error(`${dir} has no build: run npm run build (the cockpit's tests need it)`);
  h = await startToolgate();
});
afterAll(async () => h?.close());

/** A raw GET (fetch would decompress the body and hide Content-Encoding's effect). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(h.url + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const indexHtml = () => readFileSync(join(dir, "index.html"), "utf8");
const assetNames = () => [...indexHtml().matchAll(/(?:src|href)="\/cockpit\/assets\/([^"]+)"/g)].map((m) => m[1]!);

describe("the cockpit's page", () => {
  it("is no-store with a CSP that allows scripts and styles from this origin only, and holds no inline script or style", async () => {
    const r = await get("/cockpit/");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["content-security-policy"]).toBe(COCKPIT_CSP);
    const csp = Object.fromEntries(COCKPIT_CSP.split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    expect(csp["default-src"]).toEqual(["'none'"]);
    expect(csp["script-src"]).toEqual(["'self'"]);
    expect(csp["style-src"]).toEqual(["'self'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(COCKPIT_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(r.headers["x-frame-options"]).toBe("DENY");
    expect(r.headers["x-content-type-options"]).toBe("nosniff");

    const html = r.body.toString("utf8");
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="\/cockpit\/assets\/[\w.-]+\.js"/);
      expect(body!.trim()).toBe("");
    }
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i);
    // Nothing from another origin: every URL the page names is under /cockpit/ (or an empty data: icon).
    for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^(\/cockpit\/|data:)/);
  });

  it("answers every client route with the same page (SPA fallback), and /cockpit redirects to /cockpit/", async () => {
    const page = (await get("/cockpit/")).body;
    for (const path of ["/cockpit/applications", "/cockpit/applications/2b7c9a8e-0000-4000-8000-000000000000", "/cockpit/audit?action=role.*", "/cockpit/settings?tab=webhooks", "/cockpit/no/such/screen"]) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers["cache-control"], path).toBe("no-store");
      expect(r.headers["content-security-policy"], path).toBe(COCKPIT_CSP);
      expect(r.body.equals(page), path).toBe(true);
    }
    const bare = await get("/cockpit?next=%2Faudit");
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe("/cockpit/?next=%2Faudit");
  });
});

describe("the cockpit's assets", () => {
  it("are content-hashed, immutable for a year, and sent brotli- or gzip-precompressed as the client accepts", async () => {
    const names = assetNames();
    expect(names.some((n) => n.endsWith(".js"))).toBe(true);
    expect(names.some((n) => n.endsWith(".css"))).toBe(true);
    for (const name of names) {
      expect(name, "a content hash in the name").toMatch(/-[\w-]{8,}\.(js|css)$/);
      const plain = readFileSync(join(dir, "assets", name));

      const br = await get(`/cockpit/assets/${name}`, { "accept-encoding": "gzip, deflate, br" });
      expect(br.status).toBe(200);
      expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.headers.vary).toBe("Accept-Encoding");
      expect(Number(br.headers["content-length"])).toBe(br.body.length);
      expect(br.body.length).toBeLessThan(plain.length);
      expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);

      const gz = await get(`/cockpit/assets/${name}`, { "accept-encoding": "gzip" });
      expect(gz.headers["content-encoding"]).toBe("gzip");
      expect(gunzipSync(gz.body).equals(plain)).toBe(true);

      const identity = await get(`/cockpit/assets/${name}`, { "accept-encoding": "identity" });
      expect(identity.headers["content-encoding"]).toBeUndefined();
      expect(identity.body.equals(plain)).toBe(true);
      expect(identity.headers["content-type"]).toBe(name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
    }
  });

  it("answers 404 no-store for unknown names, the precompressed copies themselves, and paths out of the folder", async () => {
    const [js] = assetNames().filter((n) => n.endsWith(".js"));
    for (const path of ["/cockpit/assets/missing-0123456789.js", `/cockpit/assets/${js}.br`, `/cockpit/assets/${js}.gz`, "/cockpit/assets/..%2findex.html", "/cockpit/assets/..%2f..%2fpackage.json"]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.headers["cache-control"], path).toBe("no-store");
    }
  });
});

describe("the initial load", () => {
  it("is reported by the build, matches the files, and stays within the 300 kB gzipped budget", () => {
    const report = JSON.parse(readFileSync(join(dir, "build-report.json"), "utf8")) as {
      initial_load: { files: { name: string; bytes: number; gzip_bytes: number }[]; gzip_bytes: number };
      budget_gzip_bytes: number;
      within_budget: boolean;
    };
    expect(report.budget_gzip_bytes).toBe(300 * 1024);
    // The report lists what a first visit downloads: the page and every asset it names (read here
    // from the page, independently of scripts/build-cockpit.mjs).
    const names = ["index.html", ...new Set(assetNames().map((n) => `assets/${n}`))];
    expect(report.initial_load.files.map((f) => f.name).sort()).toEqual([...names].sort());
    // Its figures are the files' own (recomputed here, same compression level).
    let total = 0;
    for (const f of report.initial_load.files) {
      const plain = readFileSync(join(dir, f.name));
      expect(f.bytes, f.name).toBe(plain.length);
      expect(f.gzip_bytes, f.name).toBe(gzipSync(plain, { level: 9 }).length);
      total += f.gzip_bytes;
    }
    expect(report.initial_load.gzip_bytes).toBe(total);
    expect(report.within_budget).toBe(true);
    expect(total).toBeLessThanOrEqual(300 * 1024);
    // Screens are lazy chunks, not part of the first load: the build has more scripts than the page names.
    const scripts = readdirSync(join(dir, "assets")).filter((n) => n.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(names.filter((n) => n.endsWith(".js")).length + 3);
  });
});
