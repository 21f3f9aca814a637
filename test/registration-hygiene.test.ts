// Registrations that never connected are removed after TOOLGATE_REGISTRATION_IDLE_DAYS (registration
// is open to anyone; unused ones must not pile up), but never one that connected to a server or
// still holds a live refresh token; recent ones stay. Counted for monitoring.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { sha256Base64url } from "../src/shared/crypto";
import { startToolgate, type Harness } from "./helpers/harness";
import { authorizeCode, exchangeCode, setUpSignIn } from "./helpers/signin-flow";

const REDIRECT = "http://127.0.0.1/callback";
const USER = { email: "hy@example.test", password: "hy-password-1234" };
const DAY = 86_400_000;

const clock = new ManualClock(new Date());
let h: Harness;
let setup: Awaited<ReturnType<typeof setUpSignIn>>;

beforeAll(async () => {
  h = await startToolgate({ clock });
  setup = await setUpSignIn(h.url, h.adminToken, { name: "Hygiene", scopes: ["h:read"], users: [USER], redirectUri: REDIRECT });
});
afterAll(async () => h?.close());

async function register(name: string): Promise<string> {
  const r = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", client_name: name } });
  expect(r.status).toBe(201);
  return r.body.client_id;
}

describe("pruning idle registrations", () => {
  it("removes only old registrations that never connected and hold no live token", async () => {
    const idle = await register("idle");
    const connected = await register("connected");
    const holding = await register("holding a refresh token");
    const flow = { publicUrl: h.config.publicUrl, serverUrl: h.url, clientId: connected, redirectUri: REDIRECT, resource: setup.resource, scope: "", ...USER };
    const { code, verifier } = await authorizeCode(flow);
    expect((await exchangeCode(flow, code, verifier)).status).toBe(200);
    // A refresh token with no connection behind it (its server was removed): still live, so kept.
    await h.db.refreshToken.create({
      data: { tokenHash: sha256Base64url("x"), familyId: "f", tenantId: h.workspaceId, clientId: holding, userId: setup.userIds[0]!, scope: "", resource: setup.resource, expiresAt: new Date(clock.now().getTime() + 90 * DAY) },
    });

    clock.advance(31 * DAY);
    const recent = await register("recent");
    const before = h.services.registration.stats.pruned;
    expect(await h.services.registration.pruneIdle(30)).toBe(1);
    const left = (await h.db.client.findMany({ where: { clientId: { in: [idle, connected, holding, recent] } }, select: { clientId: true } })).map((c) => c.clientId);
    expect(left.sort()).toEqual([connected, holding, recent].sort());
    expect(h.services.registration.stats.pruned).toBe(before + 1);
    // Nothing more to remove on the next run.
    expect(await h.services.registration.pruneIdle(30)).toBe(0);
    // 0 days: pruning off.
    expect(await h.services.registration.pruneIdle(0)).toBe(0);
  });
});

describe("the registration rate limit behind a trusted proxy", () => {
  let proxied: Harness;
  beforeAll(async () => {
    proxied = await startToolgate({ env: { TOOLGATE_TRUST_PROXY: "loopback", TOOLGATE_REGISTRATION_RATE_LIMIT: "2" } });
  });
  afterAll(async () => proxied?.close());

  const registerFrom = (address: string) =>
    proxied.request("POST", "/oauth/register", {
      json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", client_name: "via proxy" },
      headers: { "x-forwarded-for": address },
    });

  it("counts the client the proxy names, not the proxy: one client's limit is not everyone's", async () => {
    expect((await registerFrom("203.0.113.7")).status).toBe(201);
    expect((await registerFrom("203.0.113.7")).status).toBe(201);
    const limited = await registerFrom("203.0.113.7");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await registerFrom("198.51.100.4")).status).toBe(201);
    // An IPv6 client is counted by its /64: other addresses of the same /64 share its budget.
    expect((await registerFrom("2001:db8:0:1::1")).status).toBe(201);
    expect((await registerFrom("2001:db8:0:1::2")).status).toBe(201);
    expect((await registerFrom("2001:db8:0:1::3")).status).toBe(429);
  });
});
