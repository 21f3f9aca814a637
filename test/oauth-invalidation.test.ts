// The hot paths answer from memory, so every write that changes what they answer must reach
// them: in this process at once, in other instances through the change bus (PostgreSQL
// LISTEN/NOTIFY; on SQLite the watch for outside writes), and across a restart through the database. Each invalidation is proven here, on an exact clock, together
// with the rule that token issuance and introspection run no SQL at all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import { ManualClock } from "../src/shared/clock";
import { observeQueries } from "../src/storage";
import { boot } from "../src/boot";
import { createApp, type App } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { startToolgate, type Harness } from "./helpers/harness";
import { startSecondApp } from "./helpers/second-app";
import { claimsOf, clientCredentials, createClient, createServer, discover, insecure, introspect, revoke, type ClientFixture, type ServerFixture } from "./helpers/oauth-fixtures";

const clock = new ManualClock(new Date("2026-04-01T00:00:00.000Z"));
const sql: string[] = [];
const stopObserving = observeQueries((q) => sql.push(q.query));

let h: Harness;
let as: oauth.AuthorizationServer;
let server: ServerFixture;

beforeAll(async () => {
  h = await startToolgate({ clock });
  as = await discover(h);
  server = await createServer(h);
});
afterAll(async () => {
  stopObserving();
  await h?.close();
});

const clientsPath = (rs = server.id) => `/svc/resource-servers/${rs}/clients`;

/** A second Toolgate process on the same database (a restart, or another instance behind a balancer). */
async function secondInstance(): Promise<{ app: App; as: oauth.AuthorizationServer; close(): Promise<void> }> {
  const { db, masterKey } = await boot(h.config);
  const app = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent"), clock });
  await app.start();
  const http: Server = createHttpServer(app.app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // Same issuer (shared configuration), this instance's address.
  const as2 = { ...as, token_endpoint: `${base}/oauth/token`, introspection_endpoint: `${base}/oauth/introspect`, revocation_endpoint: `${base}/oauth/revoke` };
  return {
    app,
    as: as2,
    async close() {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections?.();
      await app.close();
      await db.$disconnect();
    },
  };
}

describe("no database query on the hot paths", () => {
  it("issues tokens and introspects them with zero SQL statements", async () => {
    const client = await createClient(h, server.id);
    // Warm: the first request of a client loads its entries (client, server, access facts).
    expect((await introspect(as, server, (await clientCredentials(as, client)).access_token)).active).toBe(true);
    sql.length = 0;
    for (let i = 0; i < 5; i++) {
      const t = await clientCredentials(as, client, { scope: "files:read" }, i % 2 ? "post" : "basic");
      expect((await introspect(as, server, t.access_token)).active).toBe(true);
      expect(await introspect(as, server, "garbage")).toEqual({ active: false });
    }
    expect(sql).toEqual([]);
    // The observer does see queries (so the assertion above can fail): an admin read makes some.
    await h.admin("GET", clientsPath());
    expect(sql.length).toBeGreaterThan(0);
  });

  it("a refused client authentication reads the client once from the database whatever the id, so its time does not tell which ids exist", async () => {
    const client = await createClient(h, server.id);
    await clientCredentials(as, client); // cached
    const token = (form: Record<string, string>, basic?: [string, string]) => h.request("POST", "/oauth/token", { form: { grant_type: "client_credentials", ...form }, ...(basic ? { basic } : {}) });
    const clientReads = async (send: () => Promise<{ status: number }>, status: number) => {
      sql.length = 0;
      expect((await send()).status).toBe(status);
      return sql.filter((q) => /FROM [`"](?:main|public)[`"]\.[`"]Client[`"] /.test(q)).length;
    };
    const unknown = "tgc_nobodyHasThisIdAtAll00";
    expect({
      known: await clientReads(() => token({}, [client.client_id, "wrong-secret"]), 401),
      knownAgain: await clientReads(() => token({}, [client.client_id, "wrong-secret"]), 401),
      unknown: await clientReads(() => token({}, [unknown, "wrong-secret"]), 401), // a miss
      unknownAgain: await clientReads(() => token({}, [unknown, "wrong-secret"]), 401), // known not to exist
      knownWithoutSecret: await clientReads(() => token({ client_id: client.client_id }), 401),
      right: await clientReads(() => token({}, [client.client_id, client.client_secret]), 200),
    }).toEqual({ known: 1, knownAgain: 1, unknown: 1, unknownAgain: 1, knownWithoutSecret: 1, right: 0 });
  });

  it("writes last-used stamps in batches, off the request path", async () => {
    const client = await createClient(h, server.id);
    await clientCredentials(as, client);
    expect((await h.db.client.findUnique({ where: { clientId: client.client_id } }))?.lastUsedAt).toBeNull();
    await h.services.oauth.lastUsed.flush();
    expect((await h.db.client.findUnique({ where: { clientId: client.client_id } }))?.lastUsedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await h.admin("GET", `${clientsPath()}/${client.client_id}`)).body.last_used_at).toBe(clock.now().toISOString());
  });
});

describe("invalidation in this process (at once)", () => {
  let client: ClientFixture;
  beforeAll(async () => {
    client = await createClient(h, server.id, { allowed_scopes: ["files:read", "files:write"], token_lifetime: 600 });
  });

  it("a token is active until exp and inactive from exp on", async () => {
    const t = await clientCredentials(as, client);
    const exp = claimsOf(t.access_token).exp as number;
    expect((await introspect(as, server, t.access_token)).active).toBe(true); // now cached as verified
    clock.set(new Date((exp - 1) * 1000));
    expect((await introspect(as, server, t.access_token)).active).toBe(true);
    clock.set(new Date(exp * 1000));
    expect(await introspect(as, server, t.access_token)).toEqual({ active: false });
  });

  it("narrowing allowed scopes narrows introspection; widening never exceeds the token", async () => {
    const t = await clientCredentials(as, client, { scope: "files:read files:write" });
    expect((await introspect(as, server, t.access_token)).scope).toBe("files:read files:write");
    await h.admin("PATCH", `${clientsPath()}/${client.client_id}`, { allowed_scopes: ["files:read"] });
    expect((await introspect(as, server, t.access_token)).scope).toBe("files:read");
    // New tokens may not ask for the removed scope.
    const err = await clientCredentials(as, client, { scope: "files:write" }).catch((e) => e);
    expect(err.cause).toMatchObject({ error: "invalid_scope" });
    await h.admin("PATCH", `${clientsPath()}/${client.client_id}`, { allowed_scopes: [] });
    expect(await introspect(as, server, t.access_token)).toMatchObject({ active: true, scope: "" });
    await h.admin("PATCH", `${clientsPath()}/${client.client_id}`, { allowed_scopes: ["files:read", "files:write", "admin"] });
    expect((await introspect(as, server, t.access_token)).scope).toBe("files:read files:write");
  });

  it("deleting a scope of the server: new tokens no longer carry it and introspection drops it at once", async () => {
    const rs = await createServer(h, { scopes_supported: ["docs:read", "docs:write"] });
    const c = await createClient(h, rs.id, { allowed_scopes: ["docs:read", "docs:write"] });
    const t = await clientCredentials(as, c);
    expect(t.scope).toBe("docs:read docs:write");
    expect((await h.admin("DELETE", `/svc/resource-servers/${rs.id}/scopes/docs:write`)).status).toBe(204);
    expect((await introspect(as, rs, t.access_token)).scope).toBe("docs:read");
    expect((await clientCredentials(as, c)).scope).toBe("docs:read");
    const err = await clientCredentials(as, c, { scope: "docs:write" }).catch((e) => e);
    expect(err.cause).toMatchObject({ error: "invalid_scope" });
    // Re-creating a scope with the same id does not silently give it back to the client.
    expect((await h.admin("POST", `/svc/resource-servers/${rs.id}/scopes`, { id: "docs:write", name: "Write again" })).status).toBe(201);
    expect((await clientCredentials(as, c)).scope).toBe("docs:read");
    expect((await h.admin("GET", `/svc/resource-servers/${rs.id}/clients/${c.client_id}`)).body.allowed_scopes).toEqual(["docs:read"]);
  });

  it("revoking the client refuses it at the token endpoint and deactivates its tokens at once", async () => {
    const victim = await createClient(h, server.id);
    const t = await clientCredentials(as, victim);
    expect((await introspect(as, server, t.access_token)).active).toBe(true);
    await h.admin("POST", `${clientsPath()}/${victim.client_id}/revoke`);
    const err = await clientCredentials(as, victim).catch((e) => e);
    expect(err.status).toBe(401);
    expect(await err.response.json()).toEqual({ error: "invalid_client", error_description: "client authentication failed" });
    expect(await introspect(as, server, t.access_token)).toEqual({ active: false });
    // A revoked client cannot use the revocation endpoint either.
    const rev = await oauth.revocationRequest(as, { client_id: victim.client_id }, oauth.ClientSecretBasic(victim.client_secret), t.access_token, insecure);
    expect(rev.status).toBe(401);
  });

  it("rotating the server's introspection secret refuses the old one at once", async () => {
    const rs = await createServer(h);
    const c = await createClient(h, rs.id);
    const t = await clientCredentials(as, c);
    const rotated = await h.admin("POST", `/svc/resource-servers/${rs.id}/rotate-introspection-secret`);
    const old = await oauth.introspectionRequest(as, { client_id: rs.id }, oauth.ClientSecretBasic(rs.introspection_secret), t.access_token, insecure);
    expect(old.status).toBe(401);
    expect((await introspect(as, { ...rs, introspection_secret: rotated.body.introspection_secret }, t.access_token)).active).toBe(true);
  });

  it("deleting the server ends its tokens, even for a new server at the same URL", async () => {
    const rs = await createServer(h, { public_base_url: "https://reused.example.test" });
    const c = await createClient(h, rs.id);
    const t = await clientCredentials(as, c);
    await h.admin("DELETE", `/svc/resource-servers/${rs.id}`);
    // The deleted server cannot introspect any more...
    const gone = await oauth.introspectionRequest(as, { client_id: rs.id }, oauth.ClientSecretBasic(rs.introspection_secret), t.access_token, insecure);
    expect(gone.status).toBe(401);
    // ...a newcomer at the same resource URL does not inherit its tokens...
    const successor = await createServer(h, { public_base_url: "https://reused.example.test" });
    expect(successor.resource_url).toBe(rs.resource_url);
    expect(await introspect(as, successor, t.access_token)).toEqual({ active: false });
    // ...and the old client gets no more tokens for it.
    const err = await clientCredentials(as, c).catch((e) => e);
    expect(err.cause).toEqual({ error: "invalid_target", error_description: "the requested resource is invalid, unknown, or not available to this client" });
  });
});

describe("restart and other instances", () => {
  it("a revocation survives a restart (the denylist is loaded at start)", async () => {
    const client = await createClient(h, server.id);
    const t = await clientCredentials(as, client);
    await revoke(as, client, t.access_token);
    const restarted = await secondInstance();
    try {
      expect(restarted.app.services.oauth.revocations.isRevoked(claimsOf(t.access_token).jti as string)).toBe(true);
      expect(await introspect(restarted.as, server, t.access_token)).toEqual({ active: false });
      // An unrevoked token of the same client is still fine there.
      const other = await clientCredentials(restarted.as, client);
      expect((await introspect(restarted.as, server, other.access_token)).active).toBe(true);
    } finally {
      await restarted.close();
    }
  });

  it("another instance catches up with revocations, client changes and new clients as they commit", async () => {
    const client = await createClient(h, server.id, { allowed_scopes: ["files:read", "files:write"] });
    const t = await clientCredentials(as, client, { scope: "files:read files:write" });
    const other = await secondInstance();
    try {
      expect((await introspect(other.as, server, t.access_token)).scope).toBe("files:read files:write");

      // Instance 1 narrows the client and revokes a token; instance 2 learns it from the bus.
      const t2 = await clientCredentials(as, client);
      expect((await introspect(other.as, server, t2.access_token)).active).toBe(true);
      await h.admin("PATCH", `${clientsPath()}/${client.client_id}`, { allowed_scopes: ["files:read"] });
      await revoke(as, client, t2.access_token);
      const late = await createClient(h, server.id);
      await other.app.catchUp();
      expect((await introspect(other.as, server, t.access_token)).scope).toBe("files:read");
      expect(await introspect(other.as, server, t2.access_token)).toEqual({ active: false });
      expect((await clientCredentials(other.as, late)).token_type).toBe("bearer");

      // Revoking the client on instance 1 reaches instance 2's token endpoint and introspection.
      await h.admin("POST", `${clientsPath()}/${client.client_id}/revoke`);
      await other.app.catchUp();
      expect(await introspect(other.as, server, t.access_token)).toEqual({ active: false });
      expect((await clientCredentials(other.as, client).catch((e) => e)).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe("a secret rotated on another instance, before its change arrives", () => {
  it("authenticates at once: a refused secret is checked again against what is stored", async () => {
    // SQLite: this instance looks for outside writes only once a minute here, so its entry stays
    // stale for the whole test (PostgreSQL: the notification may or may not have arrived).
    const slow = await startToolgate({ clock, env: { TOOLGATE_CACHE_POLL_MS: "60000" } });
    const other = await startSecondApp(slow, clock);
    try {
      const slowAs = await discover(slow);
      const rs = await createServer(slow);
      const client = await createClient(slow, rs.id);
      await clientCredentials(slowAs, client); // the entry is cached with the first secret
      const owner = { userId: slow.ownerId, tenantId: slow.workspaceId, role: "owner" as const };
      const rotated = await other.app.services.clients.rotateSecret(owner, rs.id, client.client_id, {});
      const token = await clientCredentials(slowAs, { ...client, client_secret: rotated.client_secret });
      expect(token.token_type).toBe("bearer");
      await expect(clientCredentials(slowAs, client)).rejects.toMatchObject({ status: 401 }); // no grace: the old one is gone
    } finally {
      await other.close();
      await slow.close();
    }
  });
});
