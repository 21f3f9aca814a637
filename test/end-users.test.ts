// End-user state (spec "Tenant end-user state", "End users" and the end-user state table) over real
// HTTP and a real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
const clock = new ManualClock(new Date("2026-04-01T09:00:00.000Z"));
beforeAll(async () => {
  h = await startToolgate({ clock });
});
afterAll(async () => h?.close());

const base = () => `/uflow/v2/tenants/${h.workspaceId}/end-users`;
let seq = 0;

async function member(email = `user${++seq}@example.test`, username = `user${seq}`): Promise<string> {
  const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username });
  expect(r.status).toBe(201);
  return r.body.id;
}
const ids = (items: { user_id: string }[]) => items.map((i) => i.user_id);

describe("GET one end user", () => {
  it("gives a member without a stored row the defaults, with user_email and user_username joined", async () => {
    const id = await member("Dana@Example.test", "DanaK");
    const r = await h.admin("GET", `${base()}/${id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      user_id: id,
      tenant_id: h.workspaceId,
      workspace_id: h.workspaceId,
      status: "active",
      plan_tier: null,
      rate_limit_override: null,
      suspended_reason: null,
      suspended_at: null,
      user_email: "dana@example.test",
      user_username: "DanaK",
      created_at: null,
      updated_at: null,
    });
  });

  it("answers 404 for a user who is not a member of the workspace", async () => {
    const other = await h.createWorkspace(`outsider${++seq}@example.test`);
    expect((await h.admin("GET", `${base()}/${other.userId}`)).status).toBe(404);
    expect((await h.admin("PATCH", `${base()}/${other.userId}`, { plan_tier: "pro" })).status).toBe(404);
    expect((await h.admin("POST", `${base()}/${other.userId}/suspend`, {})).status).toBe(404);
    expect((await h.admin("POST", `${base()}/${other.userId}/reactivate`)).status).toBe(404);
    expect(await h.db.endUserState.count({ where: { userId: other.userId } })).toBe(0);
  });
});

describe("PATCH end user (upsert)", () => {
  it("creates the row as active when absent, then applies the patch", async () => {
    const id = await member();
    expect(await h.db.endUserState.count({ where: { userId: id } })).toBe(0);
    const r = await h.admin("PATCH", `${base()}/${id}`, { plan_tier: "pro", rate_limit_override: '{"rpm":600}' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "active", plan_tier: "pro", rate_limit_override: '{"rpm":600}', created_at: clock.now().toISOString() });
    expect(await h.db.endUserState.count({ where: { userId: id } })).toBe(1);
  });

  it("applies status, plan_tier, rate_limit_override and suspended_reason; null clears", async () => {
    const id = await member();
    const p = `${base()}/${id}`;
    const s = await h.admin("PATCH", p, { status: "suspended", suspended_reason: "chargeback", plan_tier: "enterprise-eu" });
    expect(s.body).toMatchObject({ status: "suspended", suspended_reason: "chargeback", plan_tier: "enterprise-eu", suspended_at: clock.now().toISOString() });
    const a = await h.admin("PATCH", p, { status: "active" });
    expect(a.body).toMatchObject({ status: "active", suspended_reason: null, suspended_at: null, plan_tier: "enterprise-eu" });
    const cleared = await h.admin("PATCH", p, { plan_tier: null, rate_limit_override: null });
    expect(cleared.body).toMatchObject({ plan_tier: null, rate_limit_override: null });
    expect((await h.admin("GET", p)).body).toMatchObject({ status: "active", plan_tier: null });
  });

  it("keeps rate_limit_override exactly as the string sent", async () => {
    const id = await member();
    const doc = '{ "burst": 10,\n  "per_minute": [1, 2] }';
    const r = await h.admin("PATCH", `${base()}/${id}`, { rate_limit_override: doc });
    expect(r.body.rate_limit_override).toBe(doc);
  });

  it.each([
    [{ rate_limit_override: "{not json" }, "rate_limit_override"],
    [{ rate_limit_override: { rpm: 5 } }, "rate_limit_override"],
    [{ rate_limit_override: 5 }, "rate_limit_override"],
    [{ status: "deleted" }, "status"],
    [{ status: "invited" }, "status"],
    [{ plan_tier: "" }, "plan_tier"],
    [{ plan_tier: 3 }, "plan_tier"],
    [{ suspended_reason: 1 }, "suspended_reason"],
    [{ nickname: "x" }, "body"],
    [{}, "body"],
  ])("refuses %j with 400 naming %s and writes nothing", async (body, field) => {
    const id = await member();
    const r = await h.admin("PATCH", `${base()}/${id}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field}: `));
    expect(await h.db.endUserState.count({ where: { userId: id } })).toBe(0);
  });
});

describe("suspend and reactivate (state table)", () => {
  it("any -> suspended with the reason recorded; suspended -> active", async () => {
    const id = await member();
    const p = `${base()}/${id}`;
    const s = await h.admin("POST", `${p}/suspend`, { reason: "fraud review" });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: "suspended", suspended_reason: "fraud review", suspended_at: clock.now().toISOString() });

    // Suspending again keeps the original time and takes the new reason.
    const first = s.body.suspended_at;
    clock.advance(60_000);
    const again = await h.admin("POST", `${p}/suspend`, { reason: "still under review" });
    expect(again.body).toMatchObject({ status: "suspended", suspended_reason: "still under review", suspended_at: first });

    const r = await h.admin("POST", `${p}/reactivate`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "active", suspended_reason: null, suspended_at: null });
  });

  it("suspend takes no reason at all (no body) as well", async () => {
    const id = await member();
    const r = await h.request("POST", `${base()}/${id}/suspend`, { token: h.adminToken });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "suspended", suspended_reason: null });
  });

  it("reactivate is only from suspended: 409 for an active end user (with or without a row)", async () => {
    const id = await member();
    const noRow = await h.admin("POST", `${base()}/${id}/reactivate`);
    expect(noRow.status).toBe(409);
    expect(noRow.body).toEqual({ error: "end user is not suspended" });
    await h.admin("PATCH", `${base()}/${id}`, { plan_tier: "free" });
    expect((await h.admin("POST", `${base()}/${id}/reactivate`)).status).toBe(409);
  });

  it("refuses a bad suspend body naming the field", async () => {
    const id = await member();
    const r = await h.admin("POST", `${base()}/${id}/suspend`, { reason: 42 });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^reason: /);
  });
});

describe("GET end users (list and filters)", () => {
  let alice: string, bob: string, carol: string;
  beforeAll(async () => {
    alice = await member("alice.smith@corp.test", "AliceS");
    bob = await member("bob@corp.test", "Bobby_Tables");
    carol = await member("carol@other.test", "carol");
    await h.admin("PATCH", `${base()}/${alice}`, { plan_tier: "team" });
    await h.admin("PATCH", `${base()}/${bob}`, { plan_tier: "team" });
    await h.admin("POST", `${base()}/${bob}/suspend`, { reason: "spam" });
  });

  it("answers {items, count} with user_email and user_username on every item", async () => {
    const r = await h.admin("GET", base());
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(r.body.items.length);
    expect(ids(r.body.items)).toEqual(expect.arrayContaining([h.ownerId, alice, bob, carol]));
    for (const item of r.body.items) {
      expect(typeof item.user_email).toBe("string");
      expect(typeof item.user_username).toBe("string");
    }
    expect(r.body.items.find((i: { user_id: string }) => i.user_id === bob)).toMatchObject({ status: "suspended", plan_tier: "team", suspended_reason: "spam", user_email: "bob@corp.test", user_username: "Bobby_Tables" });
  });

  it("filters by status (a member without a row counts as active)", async () => {
    const suspended = await h.admin("GET", `${base()}?status=suspended`);
    expect(ids(suspended.body.items)).toContain(bob);
    expect(suspended.body.items.every((i: { status: string }) => i.status === "suspended")).toBe(true);
    const active = await h.admin("GET", `${base()}?status=active`);
    expect(ids(active.body.items)).toEqual(expect.arrayContaining([alice, carol, h.ownerId]));
    expect(ids(active.body.items)).not.toContain(bob);
  });

  it("filters by plan_tier, alone and with status", async () => {
    const team = await h.admin("GET", `${base()}?plan_tier=team`);
    expect(ids(team.body.items).sort()).toEqual([alice, bob].sort());
    const activeTeam = await h.admin("GET", `${base()}?plan_tier=team&status=active`);
    expect(ids(activeTeam.body.items)).toEqual([alice]);
    // plan_tier is any string, matched exactly.
    expect((await h.admin("GET", `${base()}?plan_tier=TEAM`)).body.count).toBe(0);
  });

  it("q is a case-insensitive substring of email or username", async () => {
    const byEmail = await h.admin("GET", `${base()}?q=ALICE.SM`);
    expect(ids(byEmail.body.items)).toEqual([alice]);
    const byUsername = await h.admin("GET", `${base()}?q=tables`);
    expect(ids(byUsername.body.items)).toEqual([bob]);
    const domain = await h.admin("GET", `${base()}?q=CORP.test`);
    expect(ids(domain.body.items).sort()).toEqual([alice, bob].sort());
    const combined = await h.admin("GET", `${base()}?q=corp&status=suspended`);
    expect(ids(combined.body.items)).toEqual([bob]);
    expect((await h.admin("GET", `${base()}?q=nobody-matches`)).body).toEqual({ items: [], count: 0, next_cursor: null });
  });

  it("q ignores case beyond ASCII on both databases", async () => {
    const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "emile@example.test", username: "Émile" });
    expect(r.status).toBe(201);
    const found = await h.admin("GET", `${base()}?q=${encodeURIComponent("émile")}`);
    expect(ids(found.body.items)).toEqual([r.body.id]);
  });

  it("q treats LIKE wildcards literally", async () => {
    // "_" appears only in Bobby_Tables; "%" appears nowhere.
    expect(ids((await h.admin("GET", `${base()}?q=${encodeURIComponent("_")}`)).body.items)).toEqual([bob]);
    expect((await h.admin("GET", `${base()}?q=${encodeURIComponent("%")}`)).body.count).toBe(0);
  });

  it.each([
    ["status=inactive", "status"],
    ["q=", "q"],
    ["plan_tier=", "plan_tier"],
  ])("refuses ?%s with 400 naming %s", async (query, field) => {
    const r = await h.admin("GET", `${base()}?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field}: `));
  });
});

describe("workspace isolation", () => {
  it("answers 403 on every endpoint when the path names another workspace, and changes nothing there", async () => {
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    const p = `/uflow/v2/tenants/${other.workspaceId}/end-users`;
    const calls: [string, string, unknown?][] = [
      ["GET", p],
      ["GET", `${p}/${other.userId}`],
      ["PATCH", `${p}/${other.userId}`, { status: "suspended" }],
      ["POST", `${p}/${other.userId}/suspend`, { reason: "x" }],
      ["POST", `${p}/${other.userId}/reactivate`],
    ];
    for (const [method, path, json] of calls) expect((await h.admin(method, path, json)).status, `${method} ${path}`).toBe(403);
    expect((await h.request("GET", `${p}/${other.userId}`, { token: other.token })).body.status).toBe("active");
  });

  it("our end user is unknown in another workspace, which cannot add, read or suspend them", async () => {
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    const ours = await member();
    // Users are private to their workspace (decision 0017): the other workspace cannot attach ours.
    const join = await h.request("POST", `/uflow/v2/tenants/${other.workspaceId}/memberships`, { token: other.token, json: { user_id: ours } });
    expect(join.status).toBe(400);
    await h.admin("POST", `${base()}/${ours}/suspend`, { reason: "here only" });
    const there = await h.request("GET", `/uflow/v2/tenants/${other.workspaceId}/end-users/${ours}`, { token: other.token });
    expect(there.status).toBe(404);
    expect((await h.request("POST", `/uflow/v2/tenants/${other.workspaceId}/end-users/${ours}/reactivate`, { token: other.token, json: {} })).status).toBe(404);
    const theirList = await h.request("GET", `/uflow/v2/tenants/${other.workspaceId}/end-users`, { token: other.token });
    expect(ids(theirList.body.items)).toEqual([other.userId]);
    expect((await h.admin("GET", `${base()}/${ours}`)).body).toMatchObject({ status: "suspended", suspended_reason: "here only" });
  });
});
