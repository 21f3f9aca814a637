// The OAuth endpoints answer POST; other methods on their paths must keep answering as Express's
// router always did (OPTIONS: 200 with Allow, GET: 404 after the form and hygiene checks), however
// the routes are mounted (rest/oauth.ts mounts them on the app for speed, docs/benchmarks.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

describe("other methods on the OAuth paths", () => {
  for (const path of ["/oauth/token", "/oauth/introspect", "/oauth/revoke"]) {
    it(`OPTIONS ${path} answers 200 with Allow: POST`, async () => {
      const r = await fetch(h.url + path, { method: "OPTIONS" });
      expect(r.status).toBe(200);
      expect(r.headers.get("allow")).toBe("POST");
      expect(await r.text()).toBe("POST");
    });

    it(`GET ${path} answers 404, and 400 invalid_request for unstorable query text`, async () => {
      const r = await fetch(h.url + path);
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: "not found" });
      const bad = await fetch(h.url + path + "?x=%00");
      expect(bad.status).toBe(400);
      expect((await bad.json()).error).toBe("invalid_request");
      expect(bad.headers.get("cache-control")).toBe("no-store");
    });
  }
});
