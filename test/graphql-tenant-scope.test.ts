// The graph's one tenant-scoping choke point (src/storage/tenant-scope.ts) and the rules that keep
// the graph on it: every read is ANDed with the workspace (by id, in lists, in nested lists and
// counts), tables without a workspace are left alone, writes and raw SQL are refused, and nothing
// under src/graphql reads the database client directly or holds loaders outside loaders.ts.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TENANT_COLUMNS, tenantScopedReader } from "../src/storage";
import { contextFactory } from "../src/graphql/context";
import { startToolgate, type Harness } from "./helpers/harness";
import { gql } from "./graphql/client";
import { RegisterResourceServerDocument } from "./graphql/generated/graphql";

let h: Harness;
let other: { workspaceId: string; userId: string; token: string };
let aServerId: string;
let bServerId: string;

async function register(token: string, name: string): Promise<string> {
  const r = await gql(h, RegisterResourceServerDocument, { input: { name, publicBaseUrl: "https://scoped.example.test", protectedBasePath: "/mcp", scopesSupported: ["x:read", "x:write"] } }, { token });
  expect(r.errors).toBeUndefined();
  return r.data!.registerResourceServer.resourceServer.id;
}

beforeAll(async () => {
  h = await startToolgate();
  other = await h.createWorkspace("owner-scope-b@example.test");
  aServerId = await register(h.adminToken, "A");
  bServerId = await register(other.token, "B");
  // B's owner with a membership here too: rows that cross workspaces, which the API no longer makes
  // (users are private to one workspace, decision 0017) but which the reader must still cut apart
  // when a relation leads across (written with the raw client, as a legacy row would be).
  await h.db.membership.create({ data: { tenantId: h.workspaceId, userId: other.userId, membershipType: "member" } });
});
afterAll(async () => h?.close());

describe("tenantScopedReader", () => {
  it("adds the workspace to a findUnique: another workspace's row is invisible by id", async () => {
    const a = tenantScopedReader(h.db, h.workspaceId);
    expect((await a.resourceServer.findUnique({ where: { id: aServerId }, select: { id: true } }))?.id).toBe(aServerId);
    expect(await a.resourceServer.findUnique({ where: { id: bServerId } })).toBeNull();
    await expect(a.resourceServer.findUniqueOrThrow({ where: { id: bServerId } })).rejects.toThrow();
    // The unique field may even name the other workspace: the filter is ANDed, not overwritten.
    expect(await a.membership.findUnique({ where: { tenantId_userId: { tenantId: other.workspaceId, userId: other.userId } } })).toBeNull();
    expect(await a.membership.findUnique({ where: { tenantId_userId: { tenantId: h.workspaceId, userId: other.userId } } })).not.toBeNull();
    // Workspace is the tenant row itself: only the caller's own.
    expect(await a.workspace.findUnique({ where: { id: other.workspaceId } })).toBeNull();
    expect((await a.workspace.findUnique({ where: { id: h.workspaceId } }))?.id).toBe(h.workspaceId);
  });

  it("adds the workspace to findMany, findFirst, count and groupBy", async () => {
    const a = tenantScopedReader(h.db, h.workspaceId);
    const b = tenantScopedReader(h.db, other.workspaceId);
    expect((await a.resourceServer.findMany({ select: { id: true } })).map((r) => r.id)).toEqual([aServerId]);
    expect((await b.resourceServer.findMany({ where: { name: { in: ["A", "B"] } }, select: { id: true } })).map((r) => r.id)).toEqual([bServerId]);
    expect(await a.resourceServer.findFirst({ where: { id: bServerId } })).toBeNull();
    expect(await a.scope.count()).toBe(2);
    expect(await h.db.scope.count()).toBe(4); // the raw client sees both workspaces
    const grouped = await a.scope.groupBy({ by: ["resourceServerId"], _count: { _all: true } });
    expect(grouped).toEqual([{ resourceServerId: aServerId, _count: { _all: 2 } }]);
  });

  it("scopes nested lists and counts at any depth, also through a to-one relation that leads across", async () => {
    const a = tenantScopedReader(h.db, h.workspaceId);
    const b = tenantScopedReader(h.db, other.workspaceId);
    const select = { memberships: { select: { tenantId: true } }, _count: { select: { memberships: true } } } as const;
    expect(await a.user.findUnique({ where: { id: other.userId }, select })).toBeNull();
    expect(await b.user.findUnique({ where: { id: other.userId }, select })).toEqual({ memberships: [{ tenantId: other.workspaceId }], _count: { memberships: 1 } });
    // include: true on a to-many relation becomes a filtered include.
    const withScopes = await a.resourceServer.findMany({ include: { scopes: true } });
    expect(withScopes.flatMap((s) => s.scopes.map((x) => x.tenantId))).toEqual([h.workspaceId, h.workspaceId]);
    // Two levels down, through a to-one relation (Membership.user -> User.memberships).
    const deep = await a.membership.findMany({ where: { userId: other.userId }, select: { user: { select: { memberships: { select: { tenantId: true } } } } } });
    expect(deep).toEqual([{ user: { memberships: [{ tenantId: h.workspaceId }] } }]);
  });

  it("leaves a model without a workspace column alone", async () => {
    const a = tenantScopedReader(h.db, h.workspaceId);
    expect(await a.signingKey.count()).toBe(await h.db.signingKey.count());
    expect(TENANT_COLUMNS.has("SigningKey")).toBe(false);
  });

  it("scopes users: they belong to one workspace (decision 0017)", async () => {
    const a = tenantScopedReader(h.db, h.workspaceId);
    expect(TENANT_COLUMNS.get("User")).toBe("tenantId");
    expect((await a.user.findUnique({ where: { id: h.ownerId }, select: { id: true } }))?.id).toBe(h.ownerId);
    expect(await a.user.findUnique({ where: { id: other.userId } })).toBeNull();
    expect(await tenantScopedReader(h.db, other.workspaceId).user.findUnique({ where: { id: other.userId }, select: { id: true } })).toEqual({ id: other.userId });
    expect(await a.user.count()).toBe(await h.db.user.count({ where: { tenantId: h.workspaceId } }));
  });

  it("refuses every write and raw SQL", async () => {
    const a = tenantScopedReader(h.db, h.workspaceId);
    // @ts-expect-error the reader's type has no write methods either
    a.resourceServer.update;
    const writer = a as any;
    await expect(writer.resourceServer.update({ where: { id: aServerId }, data: { name: "renamed" } })).rejects.toThrow(/does not update ResourceServer: writes go through the services/);
    await expect(writer.resourceServer.updateMany({ data: { name: "renamed" } })).rejects.toThrow(/does not updateMany/);
    await expect(writer.scope.deleteMany({})).rejects.toThrow(/does not deleteMany Scope/);
    await expect(writer.group.create({ data: { tenantId: h.workspaceId, name: "g" } })).rejects.toThrow(/does not create Group/);
    await expect(writer.user.upsert({ where: { id: h.ownerId }, create: { email: "x@example.test", username: "x" }, update: {} })).rejects.toThrow(/does not upsert User/);
    await expect(writer.$executeRawUnsafe('DELETE FROM "Scope"')).rejects.toThrow(/does not \$executeRawUnsafe: .*raw SQL cannot be scoped/);
    await expect(writer.$queryRawUnsafe('SELECT * FROM "Scope"')).rejects.toThrow(/does not \$queryRawUnsafe/);
    await expect(writer.$transaction(async (tx: any) => tx.scope.deleteMany({}))).rejects.toThrow(/does not \$transaction/);
    // The raw client is not reachable from the reader, and the reader cannot be changed.
    expect(Object.isFrozen(a) && Object.isFrozen(a.scope)).toBe(true);
    expect(Object.keys(a.scope).filter((k) => !/^(find|count|aggregate|groupBy)/.test(k) && !/^(create|update|upsert|delete)/.test(k))).toEqual([]);
    expect((await h.db.resourceServer.findUniqueOrThrow({ where: { id: aServerId } })).name).toBe("A");
    expect(await h.db.scope.count()).toBe(4);
    expect(await h.db.group.count()).toBe(0);
  });

  it("scopes every model with a tenantId column in the schema, and Workspace by its id", () => {
    const schema = readFileSync(join(import.meta.dirname, "../prisma/schema.prisma"), "utf8");
    const withTenant = [...schema.matchAll(/^model (\w+) \{([^}]*)\}/gm)].filter(([, , body]) => /^\s+tenantId\s+String\b/m.test(body!)).map(([, name]) => name!);
    expect(withTenant.length).toBeGreaterThan(10);
    expect(Object.fromEntries(TENANT_COLUMNS)).toEqual({ Workspace: "id", ...Object.fromEntries(withTenant.map((m) => [m, "tenantId"])) });
  });

  it("gives the same reader for the same workspace (cheap per request)", () => {
    const first = tenantScopedReader(h.db, h.workspaceId);
    expect(tenantScopedReader(h.db, h.workspaceId)).toBe(first);
    expect(tenantScopedReader(h.db, other.workspaceId)).not.toBe(first);
    expect(() => tenantScopedReader(h.db, "")).toThrow();
  });
});

describe("the graph reads through the choke point only", () => {
  const GRAPHQL = join(import.meta.dirname, "../src/graphql");
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : name.endsWith(".ts") ? [join(dir, name)] : []));
  const sources = files(GRAPHQL).map((path) => ({ path: relative(GRAPHQL, path), code: readFileSync(path, "utf8").replace(/^\s*(\/\/|\*|\/\*).*$/gm, "") }));

  it("no file under src/graphql reads services.db or adds the workspace filter by hand", () => {
    expect(sources.length).toBeGreaterThan(10);
    const offences = sources.flatMap(({ path, code }) => [
      ...(/services\s*\.\s*db\b|services\s*\[\s*["'`]db["'`]\s*\]/.test(code) ? [`${path}: reads services.db (read through ctx.reads)`] : []),
      ...(/tenantId:\s*ctx\.actor/.test(code) ? [`${path}: adds tenantId: ctx.actor... by hand (ctx.reads adds it)`] : []),
      ...(/\{\s*db\s*[,}][^=]*=\s*ctx\b|ctx\.services\s*\)/.test(code) ? [`${path}: destructures the context's services`] : []),
    ]);
    expect(offences).toEqual([]);
  });

  it("holds DataLoaders in loaders.ts only", () => {
    const offences = sources.filter(({ path, code }) => path !== "loaders.ts" && /new DataLoader\b|\.loadable(List|Object)?\(|plugin-dataloader/.test(code)).map((s) => s.path);
    expect(offences).toEqual([]);
  });

  it("builds a context without the database client", async () => {
    const ctx = await contextFactory(h.services)({
      request: new Request("http://127.0.0.1/graphql", { headers: { authorization: `Bearer ${h.adminToken}` } }),
      res: { locals: { requestId: "req-1" } },
    } as never);
    expect(Object.keys(ctx).sort()).toEqual(["actor", "loaders", "reads", "requestId", "services"]);
    expect("db" in ctx.services).toBe(false);
    expect(ctx.reads).toBe(tenantScopedReader(h.db, h.workspaceId));
    expect(await ctx.reads.resourceServer.findUnique({ where: { id: bServerId } })).toBeNull();
  });
});
