// The access views on the graph (src/graphql/types/access-views.ts): ResourceServer.posture batched
// by a loader (the statement count does not grow with the number of servers), accessSimulation and
// recentFailures through the same services as REST, with the same roles.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { gql } from "./graphql/client";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

const POSTURE = `{ resourceServers { id posture { tools { total mapped public unmapped pinnedDefinitionChanged } openDriftEvents usersWithAccess bindingsExpiring7d pendingAccessRequests clients } } }`;
let n = 0;
async function addServer(tools: number): Promise<string> {
  n++;
  const rs = await h.admin("POST", "/svc/resource-servers", { name: `S${n}`, public_base_url: `https://s${n}.example.test`, protected_base_path: "/mcp", scopes_supported: [] });
  for (let i = 0; i < tools; i++) expect((await h.admin("POST", `/svc/resource-servers/${rs.body.id}/tools`, { name: `tool_${i}` })).status).toBe(201);
  return rs.body.id;
}
async function countPosture() {
  statements.length = 0;
  const r = await gql<any, any>(h, POSTURE);
  expect(r.errors).toBeUndefined();
  return { count: statements.length, sql: [...statements], servers: r.data.resourceServers };
}

describe("ResourceServer.posture", () => {
  it("answers the REST figures, in a number of statements that does not grow with the servers", async () => {
    await addServer(1);
    const small = await countPosture();
    expect(small.servers[0].posture.tools).toEqual({ total: 1, mapped: 0, public: 0, unmapped: 1, pinnedDefinitionChanged: 0 });
    expect(small.sql.some((s) => /GROUP BY/i.test(s))).toBe(true);
    for (let i = 0; i < 4; i++) await addServer(3);
    const large = await countPosture();
    expect(large.servers).toHaveLength(5);
    expect(large.servers.map((s: any) => s.posture.tools.total).sort()).toEqual([1, 3, 3, 3, 3]);
    expect(large.count, `5 servers:\n${large.sql.join("\n")}\n\n1 server:\n${small.sql.join("\n")}`).toBe(small.count);
    const rest = await h.admin("GET", `/svc/v1/workspaces/${h.workspaceId}/applications/posture-summary`);
    for (const item of rest.body.items) {
      const g = large.servers.find((s: any) => s.id === item.application_id).posture;
      expect(g.tools.total).toBe(item.tools.total);
      expect(g.usersWithAccess).toBe(item.users_with_access);
    }
  });
});

describe("accessSimulation and recentFailures", () => {
  it("answer as REST does; a member is refused", async () => {
    const rsId = await addServer(1);
    const tool = (await h.admin("GET", `/svc/resource-servers/${rsId}/tools`)).body.items[0].tool_id;
    const sim = await gql<any, any>(h, `query($a: ID!, $u: ID!, $t: ID!) { accessSimulation(applicationId: $a, userId: $u, toolId: $t) { verdict failedCondition safestFix fix decisionTrace { check state } requiredScopes } }`, { a: rsId, u: h.ownerId, t: tool });
    expect(sim.errors).toBeUndefined();
    expect(sim.data.accessSimulation).toMatchObject({ verdict: "denied", failedCondition: "application_not_launched" });
    expect(JSON.parse(sim.data.accessSimulation.fix)).toMatchObject({ kind: "activate_application", application_id: rsId });
    expect(sim.data.accessSimulation.decisionTrace.find((s: any) => s.check === "application_launched").state).toBe("blocked");

    await h.request("POST", "/svc/uflow/auth/login", { json: { email: "owner@example.test", password: "wrong password here", workspace_id: h.workspaceId } });
    const failures = await gql<any, any>(h, `query($u: ID!) { recentFailures(userId: $u, first: 5) { stage check reason count } }`, { u: h.ownerId });
    expect(failures.errors).toBeUndefined();
    expect(failures.data.recentFailures[0]).toMatchObject({ stage: "sign_in", check: "credentials_valid", count: 1 });
    const both = await gql<any, any>(h, `{ recentFailures { stage } }`);
    expect(both.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");

    const email = "graph-member@example.test";
    const u = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: "gm", password: "a long enough password 4" });
    expect(u.status).toBe(201);
    const member = await h.login(email, "a long enough password 4", h.workspaceId);
    const refused = await gql<any, any>(h, POSTURE, undefined, { token: member });
    expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });
});
