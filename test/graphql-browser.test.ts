// /graphql as browsers see it: no CORS unless an origin is on the allow-list (and never
// credentials), and the GraphiQL page with a Content-Security-Policy that forbids framing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRAPHIQL_CSP, GRAPHQL_PATH } from "../src/graphql/server";
import { startToolgate, type Harness } from "./helpers/harness";

const COCKPIT = "https://cockpit.example.test";
const EVIL = "https://evil.example.test";

let h: Harness;
let allowList: Harness;
let allowListUrl: string;

beforeAll(async () => {
  h = await startToolgate();
  allowList = await startToolgate({ env: { TOOLGATE_GRAPHQL_CORS_ORIGINS: `${COCKPIT}, https://other.example.test` } });
  allowListUrl = allowList.url + GRAPHQL_PATH;
});
afterAll(async () => {
  await allowList?.close();
  await h?.close();
});

const corsHeaders = (r: Response) => Object.fromEntries([...r.headers].filter(([k]) => k.startsWith("access-control-")));

function post(url: string, origin: string) {
  const token = url.startsWith(allowList.url) ? allowList.adminToken : h.adminToken;
  return fetch(url, {
    method: "POST",
    headers: { origin, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "{ workspace { name } }" }),
  });
}

function preflight(url: string, origin: string) {
  return fetch(url, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
}

describe("GraphQL CORS", () => {
  it("is off by default: no Access-Control-* header for any origin, preflight included", async () => {
    const r = await post(`${h.url}${GRAPHQL_PATH}`, EVIL);
    expect(r.status).toBe(200);
    expect(corsHeaders(r)).toEqual({});
    const p = await preflight(`${h.url}${GRAPHQL_PATH}`, EVIL);
    expect(corsHeaders(p)).toEqual({});
  });

  it("with an allow-list, answers CORS to a listed origin only, without credentials", async () => {
    const allowed = await post(allowListUrl, COCKPIT);
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ data: { workspace: { name: "Acme" } } });
    expect(corsHeaders(allowed)).toEqual({ "access-control-allow-origin": COCKPIT, "access-control-allow-methods": "GET, POST", "access-control-allow-headers": "authorization, content-type, accept, x-request-id", "access-control-expose-headers": "x-request-id", "access-control-max-age": "600" });
    const p = await preflight(allowListUrl, COCKPIT);
    expect(p.status).toBe(204);
    expect(p.headers.get("access-control-allow-origin")).toBe(COCKPIT);
    expect(p.headers.get("access-control-allow-credentials")).toBeNull();

    for (const origin of [EVIL, `${COCKPIT}.evil.test`, "null", COCKPIT.replace("https", "http")]) {
      expect(corsHeaders(await post(allowListUrl, origin))).toEqual({});
      expect(corsHeaders(await preflight(allowListUrl, origin))).toEqual({});
    }
  });
});

describe("GraphiQL page", () => {
  it("is served with a CSP that forbids framing and loading from elsewhere, and X-Frame-Options DENY", async () => {
    const r = await fetch(`${h.url}${GRAPHQL_PATH}`, { headers: { accept: "text/html" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("content-security-policy")).toBe(GRAPHIQL_CSP);
    expect(GRAPHIQL_CSP).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("cache-control")).toBe("no-store");
    const html = await r.text();
    // A small page: its scripts and styles come from this origin only (what the CSP allows).
    expect(html.length).toBeLessThan(5_000);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"|new URL\("([^"]+)"/g)].map((m) => m[1] ?? m[2]!);
    expect(assets.map((a) => a.replace(/\/assets\/[^/]+\//, "/assets/<version>/")).sort()).toEqual(
      ["editor.worker.js", "graphiql.css", "graphiql.js", "graphql.worker.js", "json.worker.js"].map((n) => `graphql/assets/<version>/${n}`),
    );
  });

  it("serves its assets compressed, cacheable for a year under versioned URLs, with an ETag", async () => {
    const html = await (await fetch(`${h.url}${GRAPHQL_PATH}`, { headers: { accept: "text/html" } })).text();
    const script = /<script src="([^"]+)"/.exec(html)![1]!;
    const url = new URL(script, `${h.url}${GRAPHQL_PATH}`).href;
    // fetch() asks for gzip and decompresses; the size on the wire is the Content-Length.
    const r = await fetch(url, { headers: { "accept-encoding": "gzip" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(r.headers.get("content-encoding")).toBe("gzip");
    expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = await r.text();
    expect(body).toContain("renderYogaGraphiQL");
    expect(Number(r.headers.get("content-length"))).toBeLessThan(body.length / 2);
    const etag = r.headers.get("etag")!;
    expect(etag).toMatch(/^"[\d.]+-graphiql\.js"$/);
    const again = await fetch(url, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const stale = await fetch(url.replace(/\/assets\/[^/]+\//, "/assets/0.0.0/"));
    expect(stale.status).toBe(404);
    expect(await stale.json()).toEqual({ error: "not found" });
  });

  it("leaves the JSON answers without the page's headers", async () => {
    const r = await post(`${h.url}${GRAPHQL_PATH}`, COCKPIT);
    expect(r.headers.get("content-security-policy")).toBeNull();
  });
});
