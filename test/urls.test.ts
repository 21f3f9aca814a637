// URLs are read once, strictly (shared/urls.ts): what two parsers could read differently is refused
// with 400, and what is stored is the normalised form.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { createServer } from "./helpers/oauth-fixtures";

let h: Harness;
let serverId: string;
beforeAll(async () => {
  h = await startToolgate();
  serverId = (await createServer(h)).id;
});
afterAll(async () => h?.close());

const register = (redirect: string) =>
  h.admin("POST", `/svc/resource-servers/${serverId}/clients`, { client_name: "u", kind: "human_app", redirect_uris: [redirect], grant_types: ["authorization_code"] });
const server = (over: Record<string, unknown>) =>
  h.admin("POST", "/svc/resource-servers", { name: "u", public_base_url: "https://u.example.test", protected_base_path: "/mcp", ...over });

const REDIRECT = "redirect_uris.0: must be an absolute https URL (or http on 127.0.0.1, [::1] or localhost) without fragment or credentials: it ";
const BASE = "public_base_url: must be an absolute http(s) URL without query, fragment or credentials: it ";

describe("strict URLs", () => {
  it.each([
    ["https:\\\\evil.example/cb", "must not contain backslashes"],
    ["https://evil.example\\@good.example/cb", "must not contain backslashes"],
    ["https://good.example/c b", "must not contain spaces or control characters"],
    ["https:evil.example/cb", "must be an absolute URL with // and a host"],
    ["https://user@good.example/cb", "must not contain credentials (user@host)"],
    ["https://*.example/cb", "must not contain a wildcard host"],
    ["https://good.example/a/%2e%2e/cb", "must not contain . or .. path segments (also percent-encoded)"],
    ["https://good.example/cb#frag", "must not contain a fragment"],
  ])("refuses the redirect URI %s", async (uri, reason) => {
    const r = await register(uri);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: REDIRECT + reason });
  });

  it("stores a redirect URI normalised (scheme and host lower-case, default port dropped)", async () => {
    const r = await register("HTTPS://App.Example.Test:443/a/cb?x=1");
    expect(r.status, r.text).toBe(201);
    expect(r.body.redirect_uris).toEqual(["https://app.example.test/a/cb?x=1"]);
    const plainHttp = await register("http://app.example.test/cb");
    expect(plainHttp.status).toBe(400);
    expect(plainHttp.body.error).toBe("redirect_uris.0: must be an absolute https URL (or http on 127.0.0.1, [::1] or localhost) without fragment or credentials");
  });

  it.each([
    ["https:\\\\evil.example", "must not contain backslashes"],
    ["https://evil.example\\@good.example/", "must not contain backslashes"],
    ["https://a b.example", "must not contain spaces or control characters"],
    ["https:evil.example", "must be an absolute URL with // and a host"],
    ["https://*", "must not contain a wildcard host"],
    ["https://user:pw@good.example", "must not contain credentials (user@host)"],
  ])("refuses public_base_url %s", async (url, reason) => {
    const r = await server({ public_base_url: url });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: BASE + reason });
  });

  it("stores public_base_url normalised and refuses encoded dot segments in protected_base_path", async () => {
    const r = await server({ public_base_url: "HTTPS://Norm.Example.Test:443", protected_base_path: "/mcp" });
    expect(r.status, r.text).toBe(201);
    expect(r.body.public_base_url ?? (await h.admin("GET", `/svc/resource-servers/${r.body.id}`)).body.public_base_url).toBe("https://norm.example.test");
    const dots = await server({ public_base_url: "https://dots.example.test", protected_base_path: "/a/%2e%2e/b" });
    expect(dots.status).toBe(400);
    expect(dots.body).toEqual({ error: "protected_base_path: must not contain . or .. segments (also percent-encoded)" });
  });
});
