// Keyset pagination of every admin REST list and of the graph's growing lists (docs/architecture.md
// "Pagination"): walking a list page by page with a small limit yields every item exactly once in
// the list's stable order (ties on the first sort key broken by the row id: many rows here are
// created at the same instant of a manual clock); bad limits and cursors are 400 with exact bodies;
// deleting rows between pages (the cursor row included) neither breaks nor skews the walk.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { startToolgate, type Harness } from "./helpers/harness";
import { readyServer, type ReadyServer } from "./helpers/lifecycle-flow";
import { gql } from "./graphql/client";

const clock = new ManualClock(new Date("2026-06-01T10:00:00.000Z"));
const N = 5;

let h: Harness;
let ready: ReadyServer;
let rs: string; // a server with tools, scopes and clients
let group: string; // a group with members and bindings
let user: string; // a member with bindings
let client: string; // a client (service account) with bindings
let role: string;

const LIMIT_ERROR = { error: "limit: must be an integer between 1 and 1000" };
const CURSOR_ERROR = { error: "cursor: not a cursor of this list" };

let seq = 0;
const pad = (n: number) => String(n).padStart(3, "0");

async function ok(method: string, path: string, json?: unknown) {
  const r = await h.admin(method, path, json);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}
async function newMember(): Promise<string> {
  const n = ++seq;
  // Emails not in creation order, so the end-user order (by email) differs from the membership order.
  return (await ok("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `p${pad((n * 7) % 100)}-${n}@example.test`, username: `p${n}` })).id;
}
/** Runs `create` N times; every other item at the same instant as the one before (ties on the first key). */
async function times(create: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < N; i++) {
    if (i % 2 === 0) clock.advance(1000);
    await create(i);
  }
}

beforeAll(async () => {
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test server is on 127.0.0.1
  ready = await readyServer(h);
  // Drift events (secret_rotated) are recorded while the server is ready.
  await times(() => ok("POST", `/svc/resource-servers/${ready.id}/rotate-introspection-secret`));

  await times((i) =>
    ok("POST", "/svc/resource-servers", { name: `rs ${i}`, public_base_url: `https://rs${i}.example.test`, protected_base_path: "/mcp", scopes_supported: [] }),
  );
  rs = (await ok("GET", "/svc/resource-servers?limit=1000")).items.at(-1).id;
  // Names and scope ids created out of order: those lists are by name / scope id, not by creation.
  await times((i) => ok("POST", `/svc/resource-servers/${rs}/tools`, { name: `tool_${(i * 3) % N}` }));
  await times((i) => ok("POST", `/svc/resource-servers/${rs}/scopes`, { id: `s:${(i * 3) % N}`, name: `Scope ${i}` }));
  await times((i) => ok("POST", `/svc/resource-servers/${rs}/clients`, { client_name: `client ${i}`, redirect_uris: [] }));
  client = (await ok("GET", `/svc/resource-servers/${rs}/clients?limit=1000`)).items[0].client_id;

  await times(() => newMember());
  user = await newMember();
  await times((i) => ok("POST", "/svc/authmgr/roles", { name: `role-${pad((i * 3) % N)}`, grants: [] }));
  role = (await ok("GET", "/svc/authmgr/roles?limit=1000")).items[0].id;
  await times((i) => ok("POST", "/uflow/v2/groups", { name: `group-${pad((i * 3) % N)}` }));
  group = (await ok("GET", "/uflow/v2/groups?limit=1000")).items[0].id;
  await times(async () => ok("POST", `/uflow/v2/groups/${group}/members`, { user_id: await newMember() }));
  const bind = (path: string) => times(() => ok("POST", path, { tenant_id: h.workspaceId, role_id: role }));
  await bind(`/uflow/v2/users/${user}/role-bindings`);
  await bind(`/uflow/v2/groups/${group}/role-bindings`);
  await bind(`/svc/clientms/clients/${encodeURIComponent(client)}/role-bindings`);
}, 60_000);
afterAll(async () => {
  await ready?.mcp.close();
  await h?.close();
});

interface List {
  name: string;
  path: () => string;
  /** The identity of an item (to compare walks). */
  key: (item: any) => string;
  /** The list's documented order, checked on the whole list where the wire shows the sort keys. */
  sorted?: (a: any, b: any) => number;
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const LISTS: List[] = [
  { name: "resource servers", path: () => "/svc/resource-servers", key: (x) => x.id },
  { name: "tools", path: () => `/svc/resource-servers/${rs}/tools`, key: (x) => x.tool_id, sorted: (a, b) => cmp(a.tool_name, b.tool_name) },
  { name: "scopes", path: () => `/svc/resource-servers/${rs}/scopes`, key: (x) => x.id, sorted: (a, b) => cmp(a.id, b.id) },
  {
    name: "drift events",
    path: () => `/svc/resource-servers/${ready.id}/drift-events`,
    key: (x) => x.id,
    sorted: (a, b) => cmp(b.occurred_at, a.occurred_at) || cmp(a.id, b.id),
  },
  { name: "clients of a server", path: () => `/svc/resource-servers/${rs}/clients`, key: (x) => x.client_id, sorted: (a, b) => cmp(a.created_at, b.created_at) },
  {
    name: "memberships",
    path: () => `/uflow/v2/tenants/${h.workspaceId}/memberships`,
    key: (x) => x.id,
    sorted: (a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id),
  },
  { name: "end users", path: () => `/uflow/v2/tenants/${h.workspaceId}/end-users`, key: (x) => x.user_id, sorted: (a, b) => cmp(a.user_email, b.user_email) },
  { name: "roles", path: () => "/svc/authmgr/roles", key: (x) => x.id, sorted: (a, b) => cmp(a.name, b.name) },
  { name: "groups", path: () => "/uflow/v2/groups", key: (x) => x.id, sorted: (a, b) => cmp(a.name, b.name) },
  { name: "group members", path: () => `/uflow/v2/groups/${group}/members`, key: (x) => x.user_id, sorted: (a, b) => cmp(a.created_at, b.created_at) },
  {
    name: "role bindings of a user",
    path: () => `/uflow/v2/users/${user}/role-bindings`,
    key: (x) => x.id,
    sorted: (a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id),
  },
  { name: "role bindings of a group", path: () => `/uflow/v2/groups/${group}/role-bindings`, key: (x) => x.id },
  { name: "role bindings of a client", path: () => `/svc/clientms/clients/${encodeURIComponent(client)}/role-bindings`, key: (x) => x.id },
];

const withQuery = (path: string, query: string) => `${path}${path.includes("?") ? "&" : "?"}${query}`;

async function page(path: string, limit: number, cursor: string | null) {
  const r = await h.admin("GET", withQuery(path, `limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`));
  expect(r.status, r.text).toBe(200);
  expect(Object.keys(r.body).sort()).toEqual(["count", "items", "next_cursor"]);
  expect(r.body.count).toBe(r.body.items.length);
  expect(r.body.items.length).toBeLessThanOrEqual(limit);
  return r.body as { items: any[]; count: number; next_cursor: string | null };
}

/** Every page of a list; `between` runs after each page (to change the list mid-walk). */
async function walk(path: string, limit: number, between?: (items: any[], pageNo: number) => Promise<void>, full = true) {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const p = await page(path, limit, cursor);
    pages.push(p.items);
    // Only the last page may be short (except after a literal re-check, see the end-users test).
    if (full && p.next_cursor !== null) expect(p.items).toHaveLength(limit);
    if (p.next_cursor !== null) expect(typeof p.next_cursor).toBe("string");
    cursor = p.next_cursor;
    if (between) await between(p.items, pages.length);
  } while (cursor !== null && pages.length < 200);
  expect(cursor).toBeNull();
  return pages;
}

describe.each(LISTS)("REST $name", (list) => {
  it("walks every item exactly once in the stable order, next_cursor null on the last page", async () => {
    const all = await page(list.path(), 1000, null);
    expect(all.next_cursor).toBeNull();
    expect(all.count).toBeGreaterThan(2); // more than one page of 2
    if (list.sorted) expect(all.items).toEqual([...all.items].sort(list.sorted));
    for (const limit of [1, 2, 3]) {
      const pages = await walk(list.path(), limit);
      expect(pages.length).toBe(Math.ceil(all.count / limit));
      expect(pages.flat().map(list.key)).toEqual(all.items.map(list.key));
      expect(new Set(pages.flat().map(list.key)).size).toBe(all.count);
    }
  });

  it("defaults to 100 items; the cursor of a page is the position after its last item", async () => {
    const first = await h.admin("GET", list.path());
    expect(first.status).toBe(200);
    expect(first.body.next_cursor).toBeNull(); // fewer than 100 here
    const p1 = await page(list.path(), 2, null);
    const rest = await page(list.path(), 1000, p1.next_cursor);
    expect([...p1.items, ...rest.items].map(list.key)).toEqual(first.body.items.map(list.key));
  });

  it("refuses a bad limit or cursor with 400 naming the parameter", async () => {
    for (const limit of ["0", "1001", "x", "-1", "2.5", ""]) {
      const r = await h.admin("GET", withQuery(list.path(), `limit=${limit}`));
      expect([r.status, r.body], `limit=${limit}`).toEqual([400, LIMIT_ERROR]);
    }
    const other = list.name === "roles" ? "/uflow/v2/groups" : "/svc/authmgr/roles";
    const foreign = (await page(other, 1, null)).next_cursor!;
    const garbage = ["garbage!", "abc", Buffer.from('["roles","x"]').toString("base64url"), Buffer.from("[]").toString("base64url"), ""];
    for (const cursor of [foreign, ...garbage]) {
      const r = await h.admin("GET", withQuery(list.path(), `cursor=${encodeURIComponent(cursor)}`));
      expect([r.status, r.body], `cursor=${cursor}`).toEqual([400, CURSOR_ERROR]);
    }
  });
});

describe("REST cursors", () => {
  it("a tampered cursor of the right list (wrong types or arity) is refused", async () => {
    const path = `/uflow/v2/tenants/${h.workspaceId}/memberships`;
    const good = (await page(path, 1, null)).next_cursor!;
    const [tag, createdAt, id] = JSON.parse(Buffer.from(good, "base64url").toString());
    expect(tag).toBe("memberships");
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    for (const bad of [[tag, "yesterday", id], [tag, createdAt], [tag, createdAt, id, "x"], [tag, createdAt, 5], { tag, createdAt, id }]) {
      const r = await h.admin("GET", `${path}?cursor=${enc(bad)}`);
      expect([r.status, r.body]).toEqual([400, CURSOR_ERROR]);
    }
    // The same values re-encoded are the same position.
    expect((await h.admin("GET", `${path}?cursor=${enc([tag, createdAt, id])}`)).status).toBe(200);
  });

  it("filters and pages combine; strict lists still refuse unknown parameters", async () => {
    const path = `/svc/resource-servers/${ready.id}/drift-events?undismissed=true`;
    const all = await page(path, 1000, null);
    const pages = await walk(path, 2);
    expect(pages.flat().map((e) => e.id)).toEqual(all.items.map((e: { id: string }) => e.id));
    expect((await h.admin("GET", `/svc/resource-servers/${ready.id}/drift-events?offset=2`)).body).toEqual({ error: "query: unknown field(s) offset" });
  });

  it("limit and cursor are validated together with the filters (each named)", async () => {
    const r = await h.admin("GET", `/uflow/v2/tenants/${h.workspaceId}/memberships?status=banned&limit=0`);
    expect(r.status).toBe(400);
    expect(r.body.error).toContain("status: ");
    expect(r.body.error).toContain("limit: must be an integer between 1 and 1000");
  });

  it("a cursor of another workspace's list is only a position: it shows nothing of theirs", async () => {
    const other = await h.createWorkspace(`pager${++seq}@example.test`);
    const ours = await page("/uflow/v2/groups", 1, null);
    const theirs = await h.request("GET", `/uflow/v2/groups?cursor=${ours.next_cursor}`, { token: other.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual({ items: [], count: 0, next_cursor: null });
  });
});

describe("REST changes between pages", () => {
  it("deleting the cursor row and a later row neither breaks nor repeats the walk", async () => {
    const names = Array.from({ length: 6 }, (_, i) => `del-${pad(i)}`);
    const ids: string[] = [];
    for (const name of names) ids.push((await ok("POST", "/uflow/v2/groups", { name })).id);
    const path = "/uflow/v2/groups";
    const before = (await page(path, 1000, null)).items.map((g) => g.id);
    const deleted: string[] = [];
    const pages = await walk(path, 2, async (items, pageNo) => {
      if (pageNo !== 1) return;
      // The last row of this page is the cursor's row; del-004 is on a later page.
      for (const id of [items.at(-1).id, ids[4]!]) {
        expect((await h.admin("DELETE", `/uflow/v2/groups/${id}`)).status).toBe(204);
        deleted.push(id);
      }
    });
    const seen = pages.flat().map((g) => g.id);
    expect(new Set(seen).size).toBe(seen.length);
    // Everything but the later deleted row, in order (the cursor row was already seen on page 1).
    expect(seen).toEqual(before.filter((id) => id !== ids[4]));
    expect(seen).toContain(deleted[0]);
  });

  it("deleting role bindings between pages (a walk with one item per page)", async () => {
    const path = `/uflow/v2/users/${user}/role-bindings`;
    const before = (await page(path, 1000, null)).items.map((b) => b.id);
    const gone = before[2]!;
    const pages = await walk(path, 1, async (items, pageNo) => {
      if (pageNo === 2) {
        // The cursor row and the next row.
        for (const id of [items[0].id, gone]) expect((await h.admin("DELETE", `/uflow/v2/role-bindings/${id}`)).status).toBe(204);
      }
    });
    expect(pages.flat().map((b) => b.id)).toEqual(before.filter((id) => id !== gone));
  });

  it("rows added after the cursor position show up, rows added before it do not", async () => {
    const path = "/uflow/v2/groups";
    const first = await page(path, 1, null);
    await ok("POST", path, { name: "zzz-late" }); // sorts after every other name
    await ok("POST", path, { name: "aaa-early" }); // and before
    const rest = (await page(path, 1000, first.next_cursor)).items.map((g) => g.name);
    expect(rest).toContain("zzz-late");
    expect(rest).not.toContain("aaa-early");
    expect(rest).not.toContain(first.items[0].name);
  });
});

describe("REST end users with q (literal re-check after the database's LIKE)", () => {
  it("pages may be short, but next_cursor continues after the last row read: every match exactly once", async () => {
    // "_" is a LIKE wildcard (matches every row in the database); non-ASCII is not narrowed by SQLite at all.
    const made: { id: string; email: string; username: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const username = i % 3 === 0 ? `snake_${i}` : i % 3 === 1 ? `Ünal${i}` : `plain${i}`;
      const email = `q${pad(i)}@example.test`;
      made.push({ id: (await ok("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username })).id, email, username });
    }
    const base = `/uflow/v2/tenants/${h.workspaceId}/end-users`;
    for (const q of ["_", "ü", "Ü"]) {
      const path = `${base}?q=${encodeURIComponent(q)}`;
      const all = await page(path, 1000, null);
      const expected = all.items.map((u) => u.user_id);
      expect(expected.length).toBeGreaterThan(0);
      for (const u of made.filter((m) => m.username.toLowerCase().includes(q.toLowerCase()))) expect(expected).toContain(u.id);
      for (const limit of [1, 2, 3]) {
        const pages = await walk(path, limit, undefined, false);
        expect(pages.flat().map((u) => u.user_id), `q=${q} limit=${limit}`).toEqual(expected);
      }
    }
  });
});

describe("GraphQL first / after / cursor", () => {
  const GROUPS = `query($first: Int, $after: String) { groups(first: $first, after: $after) { id name cursor } }`;
  const MEMBERS = `query($g: ID!, $first: Int, $after: String) { group(id: $g) { members(first: $first, after: $after) { userId cursor } } }`;
  const BINDINGS = `query($g: ID!, $first: Int, $after: String) { group(id: $g) { roleBindings(first: $first, after: $after) { id cursor } } }`;
  const TOOLS = `query($id: ID!, $first: Int, $after: String) { resourceServer(id: $id) { tools(first: $first, after: $after) { id name cursor } } }`;

  /** Pages of a plain list: the next page starts after the last item's cursor; a short page is the last. */
  async function gqlWalk(query: string, variables: Record<string, unknown>, pick: (data: any) => any[], first: number) {
    const pages: any[][] = [];
    let after: string | null = null;
    for (;;) {
      const r = await gql<any, any>(h, query, { ...variables, first, after });
      expect(r.errors).toBeUndefined();
      const items = pick(r.data);
      expect(items.length).toBeLessThanOrEqual(first);
      pages.push(items);
      if (items.length < first || pages.length > 200) return pages;
      after = items.at(-1).cursor;
    }
  }

  it("walks a root list (groups) in the REST order; a REST next_cursor is the GraphQL cursor", async () => {
    const rest = (await page("/uflow/v2/groups", 1000, null)).items.map((g) => g.id);
    const pages = await gqlWalk(GROUPS, {}, (d) => d.groups, 2);
    expect(pages.flat().map((g) => g.id)).toEqual(rest);
    const p1 = await page("/uflow/v2/groups", 2, null);
    expect(pages[0]![1].cursor).toBe(p1.next_cursor);
    // Without arguments: the first 100, as before.
    expect((await gql<any, any>(h, GROUPS, {})).data.groups.map((g: { id: string }) => g.id)).toEqual(rest.slice(0, 100));
  });

  it("walks nested lists (Group.members, Group.roleBindings, ResourceServer.tools) in the REST order", async () => {
    for (const [query, vars, pick, path, key] of [
      [MEMBERS, { g: group }, (d: any) => d.group.members, `/uflow/v2/groups/${group}/members`, (x: any) => x.userId ?? x.user_id],
      [BINDINGS, { g: group }, (d: any) => d.group.roleBindings, `/uflow/v2/groups/${group}/role-bindings`, (x: any) => x.id],
      [TOOLS, { id: rs }, (d: any) => d.resourceServer.tools, `/svc/resource-servers/${rs}/tools`, (x: any) => x.id ?? x.tool_id],
    ] as const) {
      const rest = (await page(path, 1000, null)).items.map(key);
      for (const first of [1, 2]) {
        const pages = await gqlWalk(query, vars, pick, first);
        expect(pages.flat().map(key), `${path} first=${first}`).toEqual(rest);
      }
    }
  });

  it("refuses a bad first or after with BAD_USER_INPUT naming the argument", async () => {
    const roleCursor = (await page("/svc/authmgr/roles", 1, null)).next_cursor;
    const cases: [string, Record<string, unknown>, string][] = [
      [GROUPS, { first: 0 }, "first: must be an integer between 1 and 1000"],
      [GROUPS, { first: 1001 }, "first: must be an integer between 1 and 1000"],
      [GROUPS, { after: "garbage" }, "after: not a cursor of this list"],
      [GROUPS, { after: roleCursor }, "after: not a cursor of this list"],
      [MEMBERS, { g: group, first: 0 }, "first: must be an integer between 1 and 1000"],
      [MEMBERS, { g: group, after: roleCursor }, "after: not a cursor of this list"],
      [BINDINGS, { g: group, after: "garbage" }, "after: not a cursor of this list"],
      [TOOLS, { id: rs, first: 5000 }, "first: must be an integer between 1 and 1000"],
    ];
    for (const [query, variables, message] of cases) {
      const r = await gql<any, any>(h, query, variables);
      expect(r.errors?.map((e) => [e.message, e.extensions?.code]), JSON.stringify(variables)).toEqual([[message, "BAD_USER_INPUT"]]);
    }
  });
});
