// Query limits of the cockpit graph (src/graphql/limits.ts, docs/graphql.md "Limits") over real
// HTTP: the cyclic queries of the security review (Tool.scopes <-> Scope.tools, Group.members ->
// GroupMember.user -> User.groups) are refused before anything runs, without reading the
// database; depth and field-count limits hold, fragments cannot hide a selection, introspection
// still works; and every /graphql answer carries Cache-Control: no-store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getIntrospectionQuery } from "graphql";
import { observeQueries } from "../src/storage";
import { QUERY_LIMITS } from "../src/graphql/limits";
import { startToolgate, type Harness } from "./helpers/harness";
import { codesOf, gql, type GraphQLResponse } from "./graphql/client";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

const TOOLS = 8;
const SCOPES = ["files:read", "files:write", "files:list", "files:share"];

let h: Harness;
let rs: string;
beforeAll(async () => {
  h = await startToolgate();
  const created = await h.admin("POST", "/svc/resource-servers", {
    name: "Files",
    public_base_url: "https://files.example.test",
    protected_base_path: "/mcp",
    scopes_supported: SCOPES,
  });
  expect(created.status).toBe(201);
  rs = created.body.id;
  for (let i = 0; i < TOOLS; i++) expect((await h.admin("POST", `/svc/resource-servers/${rs}/tools`, { name: `tool_${i}` })).status).toBe(201);
  const mapped = await h.admin("PUT", `/svc/resource-servers/${rs}/tool-scope-map`, {
    mappings: Array.from({ length: TOOLS }, (_, i) => ({ tool_name: `tool_${i}`, scope_ids: SCOPES })),
  });
  expect(mapped.status).toBe(200);
  // A group whose member is in the group: Group.members -> GroupMember.user -> User.groups.
  const group = await gql<any, any>(h, `mutation { createGroup(input: { name: "Ops" }) { id } }`, {});
  expect(group.errors).toBeUndefined();
  const added = await gql<any, any>(h, `mutation($g: ID!, $u: ID!) { addGroupMember(groupId: $g, userId: $u) { created } }`, {
    g: group.data.createGroup.id,
    u: h.ownerId,
  });
  expect(added.errors).toBeUndefined();
});
afterAll(async () => h?.close());

/** Sends a query and returns the answer and the SQL statements it ran. */
async function measured(query: string, variables?: Record<string, unknown>) {
  statements.length = 0;
  const started = performance.now();
  const r = await gql<any, any>(h, query, variables);
  return { r, sql: [...statements], ms: performance.now() - started };
}

function expectRefused(r: GraphQLResponse<unknown>, limit: string, message: RegExp) {
  expect(r.data ?? null).toBeNull();
  expect(codesOf(r)).toContain("QUERY_TOO_COMPLEX");
  const error = r.errors!.find((e) => e.extensions?.limit === limit);
  expect(error, JSON.stringify(r.errors)).toBeDefined();
  expect(error!.message).toMatch(message);
}

const nest = (path: string[], leaf: string) => path.reduceRight((inner, field) => `${field} { ${inner} }`, leaf);

describe("cyclic fan-out", () => {
  it("refuses the review's query (Tool -> Scope -> Tool ...) before execution, without reading the database", async () => {
    const query = "{ resourceServers { tools { scopes { tools { scopes { tools { id } } } } } } }";
    const { r, sql } = await measured(query);
    expect(r.status).toBe(400);
    expectRefused(r, "listNesting", /4 lists nested inside each other at resourceServers\.tools\.scopes\.tools \(limit 3\)/);
    expect(r.errors![0].extensions).toMatchObject({ code: "QUERY_TOO_COMPLEX", limit: "listNesting", max: 3 });
    expect(sql).toEqual([]);
  });

  it("refuses the deeper variant that killed the process, just as cheaply", async () => {
    const query = `{ resourceServers { ${nest(Array.from({ length: 12 }, (_, i) => (i % 2 ? "scopes" : "tools")), "id")} } }`;
    const { r, sql } = await measured(query);
    expectRefused(r, "listNesting", /lists nested inside each other/);
    expect(sql).toEqual([]);
  });

  it("refuses groups -> members -> user -> groups -> members", async () => {
    const { r, sql } = await measured("{ groups { members { user { groups { members { userId } } } } } }");
    expectRefused(r, "listNesting", /at groups\.members\.user\.groups\.members \(limit 3\)/);
    expect(sql).toEqual([]);
  });

  it("refuses the same cycle reached from a mutation payload", async () => {
    const r = await gql<any, any>(h, `mutation { registerResourceServer(input: { name: "X", publicBaseUrl: "https://x.example.test", protectedBasePath: "/mcp" }) {
      resourceServer { scopes { tools { scopes { tools { id } } } } } } }`, {});
    expectRefused(r, "listNesting", /4 lists nested inside each other at registerResourceServer\.resourceServer\.scopes\.tools\.scopes\.tools/);
    expect((await h.admin("GET", "/svc/resource-servers")).body.items.map((s: { name: string }) => s.name)).not.toContain("X");
  });

  it("answers three nested lists: servers -> tools -> scopes, and servers -> scopes -> tools", async () => {
    const { r } = await measured("{ resourceServers { id tools { name scopes { scopeId } } scopes { scopeId tools { name } } } }");
    expect(r.errors).toBeUndefined();
    const server = r.data.resourceServers.find((s: { id: string }) => s.id === rs);
    expect(server.tools).toHaveLength(TOOLS);
    expect(server.tools[0].scopes).toHaveLength(SCOPES.length);
    expect(server.scopes[0].tools).toHaveLength(TOOLS);
  });

  it("answers groups -> members -> user -> groups, and lists of leaf objects or scalars below them", async () => {
    const r = await gql<any, any>(h, `{ groups { name members { user { email groups { name }
      roleBindings { role { grants { resourceServerId scopeIds } } } effectiveAccess { roleName } } } } }`, {});
    expect(r.errors).toBeUndefined();
    expect(r.data.groups[0].members[0].user.groups.map((g: { name: string }) => g.name)).toEqual(["Ops"]);
  });
});

describe("depth", () => {
  // Membership.user -> User.membership is a cycle without lists: only the depth limit stops it.
  const chain = (levels: number) => {
    const path = ["memberships"];
    while (path.length < levels - 1) path.push(path.length % 2 ? "user" : "membership");
    return `{ ${nest(path, "id")} }`;
  };

  it(`answers a query ${QUERY_LIMITS.maxDepth} levels deep`, async () => {
    const r = await gql<any, any>(h, chain(QUERY_LIMITS.maxDepth), {});
    expect(r.errors).toBeUndefined();
    expect(r.data.memberships.length).toBeGreaterThan(0);
  });

  it(`refuses ${QUERY_LIMITS.maxDepth + 1} levels`, async () => {
    const { r, sql } = await measured(chain(QUERY_LIMITS.maxDepth + 1));
    expectRefused(r, "depth", /nested 11 levels deep at memberships\.user\.membership\..*\.id \(limit 10\)/);
    expect(sql).toEqual([]);
  });

  it("refuses a deep cycle through nested non-list objects of a mutation payload too", async () => {
    const r = await gql<any, any>(h, `mutation($g: ID!, $u: ID!) { addGroupMember(groupId: $g, userId: $u) {
      ${nest(["member", "user", "membership", "user", "membership", "user", "membership", "user", "membership", "user"], "id")} } }`, {
      g: "00000000-0000-4000-8000-000000000000",
      u: h.ownerId,
    });
    expectRefused(r, "depth", /limit 10/);
  });
});

describe("field count", () => {
  // Spreads of one fragment at one level merge when executed, but every expansion counts.
  const spreads = (n: number, extra = "") => `{ ${"...W ".repeat(n)}${extra} } fragment W on Query { workspace { id name viewerRole createdAt } }`;

  it(`answers ${QUERY_LIMITS.maxFields} fields`, async () => {
    const r = await gql<any, any>(h, spreads(QUERY_LIMITS.maxFields / 5), {});
    expect(r.errors).toBeUndefined();
    expect(r.data.workspace.id).toBe(h.workspaceId);
  });

  it(`refuses ${QUERY_LIMITS.maxFields + 1} (the one extra field may be __typename)`, async () => {
    const { r, sql } = await measured(spreads(QUERY_LIMITS.maxFields / 5, "__typename"));
    expectRefused(r, "fieldCount", /more than 2000 fields once fragments are expanded/);
    expect(sql).toEqual([]);
  });
});

describe("aliases", () => {
  const aliased = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: name`).join(" ");

  it(`answers ${QUERY_LIMITS.maxAliases} aliases (an alias equal to the field name does not count)`, async () => {
    const r = await gql<any, any>(h, `{ resourceServers { id: id tools { name: name scopes { ${aliased(QUERY_LIMITS.maxAliases)} } } } }`, {});
    expect(r.errors).toBeUndefined();
    const scope = r.data.resourceServers.find((s: { id: string }) => s.id === rs).tools[0].scopes[0];
    expect(Object.keys(scope)).toHaveLength(QUERY_LIMITS.maxAliases);
  });

  it("refuses one more: an alias repeats its field for every row of every enclosing list", async () => {
    const { r, sql } = await measured(`{ resourceServers { tools { scopes { ${aliased(1990)} } } } }`);
    expectRefused(r, "aliases", /more than 15 aliases .* at resourceServers\.tools\.scopes\.a15 \(limit 15\)/);
    expect(sql).toEqual([]);
  });

  it("counts aliases in every expansion of a fragment", async () => {
    const query = `{ ${Array.from({ length: 4 }, (_, i) => `s${i}: resourceServers { ...Four }`).join(" ")} } fragment Four on ResourceServer { a: id b: id c: id d: id }`;
    expectRefused(await gql<any, any>(h, query, {}), "aliases", /limit 15/);
  });
});

describe("fragments cannot hide a selection", () => {
  it("counts lists through named and inline fragments", async () => {
    const query = `
      query { ...Servers }
      fragment Servers on Query { resourceServers { ...Tools } }
      fragment Tools on ResourceServer { tools { ... on Tool { scopes { ...Back } } } }
      fragment Back on Scope { ... { tools { id } } }`;
    const { r, sql } = await measured(query);
    expectRefused(r, "listNesting", /at resourceServers\.tools\.scopes\.tools \(limit 3\)/);
    expect(sql).toEqual([]);
  });

  it("counts depth through fragments", async () => {
    const query = `
      { memberships { ...M } }
      fragment M on Membership { user { membership { user { membership { ...U } } } } }
      fragment U on Membership { user { membership { user { membership { user { id } } } } } }`;
    expectRefused(await gql<any, any>(h, query, {}), "depth", /limit 10/);
  });

  it("counts every expansion of a fragment (a doubling fragment chain is refused at once)", async () => {
    let doc = "query { ...F0 }\n";
    for (let i = 0; i < 30; i++) doc += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }\n`;
    doc += "fragment F30 on Query { workspace { id } }";
    const { r, sql, ms } = await measured(doc);
    expectRefused(r, "fieldCount", /more than 2000 fields/);
    expect(sql).toEqual([]);
    expect(ms).toBeLessThan(2000);
  });

  it("answers a fragment cycle with graphql-js's own validation error, not a hang", async () => {
    const r = await gql<any, any>(h, "query { ...A } fragment A on Query { workspace { id } ...A }", {});
    expect(r.errors?.[0].message).toMatch(/Cannot spread fragment "A" within itself/);
  });
});

describe("introspection", () => {
  it("answers GraphiQL's schema query (15 levels deep through ofType, three lists)", async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const r = await gql<any, any>(h, query, {});
    expect(r.errors).toBeUndefined();
    expect(r.data.__schema.types.map((t: { name: string }) => t.name)).toContain("ResourceServer");
  });

  it("still limits lists inside introspection (types -> fields -> type -> fields -> ...)", async () => {
    const r = await gql<any, any>(h, "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }", {});
    expectRefused(r, "listNesting", /at __schema\.types\.fields\.type\.fields\.type\.fields/);
  });
});

describe("Cache-Control: no-store on every /graphql answer", () => {
  it("on queries and on the mutations that return one-time secrets", async () => {
    const q = await gql<any, any>(h, "{ workspace { id } }", {});
    expect(q.headers.get("cache-control")).toBe("no-store");

    const registered = await gql<any, any>(h, `mutation { registerResourceServer(input: { name: "Secret", publicBaseUrl: "https://secret.example.test", protectedBasePath: "/mcp" }) {
      introspectionSecret resourceServer { id } } }`, {});
    expect(registered.errors).toBeUndefined();
    expect(registered.data.registerResourceServer.introspectionSecret).toBeTruthy();
    expect(registered.headers.get("cache-control")).toBe("no-store");
    const id = registered.data.registerResourceServer.resourceServer.id;

    const rotated = await gql<any, any>(h, `mutation($id: ID!) { rotateIntrospectionSecret(id: $id) { introspectionSecret } }`, { id });
    expect(rotated.data.rotateIntrospectionSecret.introspectionSecret).toBeTruthy();
    expect(rotated.headers.get("cache-control")).toBe("no-store");

    const client = await gql<any, any>(h, `mutation($rs: ID!) { preRegisterClient(resourceServerId: $rs, input: { clientName: "job", redirectUris: [], kind: m2m }) { clientSecret } }`, { rs: id });
    expect(client.errors).toBeUndefined();
    expect(client.data.preRegisterClient.clientSecret).toBeTruthy();
    expect(client.headers.get("cache-control")).toBe("no-store");
  });

  it("on errors: refused queries, bad tokens, validation errors", async () => {
    const refused = await gql<any, any>(h, "{ groups { members { user { groups { members { userId } } } } } }", {});
    expect(refused.headers.get("cache-control")).toBe("no-store");
    const anonymous = await gql<any, any>(h, "{ workspace { id } }", {}, { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
    const invalid = await gql<any, any>(h, "{ nope }", {});
    expect(invalid.headers.get("cache-control")).toBe("no-store");
  });

  it("on GET queries and on the GraphiQL page", async () => {
    const get = await h.request("GET", `/graphql?query=${encodeURIComponent("{ workspace { id } }")}`, { token: h.adminToken, headers: { accept: "application/json" } });
    expect(get.status).toBe(200);
    expect(get.headers.get("cache-control")).toBe("no-store");
    const page = await h.request("GET", "/graphql", { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-store");
  });
});
