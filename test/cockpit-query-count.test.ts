// The cockpit's screens cost the same number of SQL statements however many rows they show (no
// N+1): each list screen's own document (cockpit/src/features/*/*.graphql, as the page sends it) is
// answered for a small workspace and again after it has grown (more applications, clients, roles,
// groups with members and bindings, users, audit events), and the statements are counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { gql } from "./graphql/client";
import {
  AddGroupMemberDocument,
  AddToolDocument,
  ApplicationDocument,
  ApplicationsDocument,
  CreateScopeDocument,
  SetToolScopesDocument,
  UserAccessDocument,
  WhoCanCallDocument,
  AuditEventsDocument,
  ClientsDocument,
  ExplainChoicesDocument,
  CreateGroupBindingDocument,
  CreateGroupDocument,
  CreateRoleDocument,
  PeopleDocument,
  PreRegisterClientDocument,
  RegisterApplicationDocument,
} from "../cockpit/src/graphql/generated/graphql";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

/** A cockpit document as the page sends it (its text), answered without errors. */
async function send<T>(document: { toString(): string }, variables: Record<string, unknown> = {}): Promise<T> {
  const r = await gql<T, Record<string, unknown>>(h, document.toString(), variables);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data as T;
}

/** The screens, each with the variables the page passes and how many rows it shows. */
const SCREENS = {
  Applications: { document: ApplicationsDocument, variables: { first: 1000 }, rows: (d: any) => d.resourceServers.length },
  Clients: { document: ClientsDocument, variables: { first: 1000 }, rows: (d: any) => d.resourceServers.flatMap((s: any) => s.clients).length },
  People: {
    document: PeopleDocument,
    variables: { first: 1000 },
    rows: (d: any) => d.memberships.length + d.roles.length + d.groups.length + d.groups.flatMap((g: any) => [...g.members, ...g.roleBindings]).length,
  },
  // The Explain form's choices: every application and every member.
  Explain: { document: ExplainChoicesDocument, variables: {}, rows: (d: any) => d.resourceServers.length + d.memberships.length },
  "Audit trail": { document: AuditEventsDocument, variables: { first: 26, filter: {} }, rows: (d: any) => d.auditEvents.length },
  // One application (the last one registered), with its tools, scopes and mappings.
  "One application": {
    document: ApplicationDocument,
    variables: () => ({ id: last.server }),
    rows: (d: any) => d.resourceServer.tools.length + d.resourceServer.scopes.length + d.resourceServer.tools.flatMap((t: any) => t.scopes).length,
  },
  // A person's effective access (the first user created), and who can call the last application's tools.
  "User access": {
    document: UserAccessDocument,
    variables: () => ({ id: last.user }),
    rows: (d: any) => d.user.effectiveAccess.length + d.user.groups.length + d.roles.length + d.resourceServers.flatMap((r: any) => r.scopes).length,
  },
  "Who can call": { document: WhoCanCallDocument, variables: () => ({ rs: last.server }), rows: (d: any) => JSON.stringify(d).length },
} as const;
type Screen = keyof typeof SCREENS;

/** Statements run answering one screen's document (read twice: the second, with caches as warm as a user's). */
async function cost(screen: Screen) {
  const { document, variables: vars, rows } = SCREENS[screen];
  const variables = typeof vars === "function" ? vars() : vars;
  await send(document, variables);
  statements.length = 0;
  const data = await send(document, variables);
  return { count: statements.length, sql: [...statements], rows: rows(data) as number };
}

let n = 0;
/** The application and the user the one-row screens show. */
const last = { server: "", user: "" };
async function grow(servers: number, clientsEach: number, roles: number, groups: number, users: number) {
  const userIds: string[] = [];
  for (let u = 0; u < users; u++) {
    const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `u${++n}@example.test`, username: `u${n}` });
    expect(r.status, r.text).toBe(201);
    userIds.push(r.body.id);
  }
  let lastServer = "";
  for (let s = 0; s < servers; s++) {
    const reg = await send<any>(RegisterApplicationDocument, { input: { name: `App ${++n}`, publicBaseUrl: `https://app${n}.example.test`, protectedBasePath: "/mcp", scopesSupported: ["a:read"] } });
    lastServer = reg.registerResourceServer.resourceServer.id;
    for (let c = 0; c < clientsEach; c++) {
      await send(PreRegisterClientDocument, { rs: lastServer, input: { clientName: `client ${++n}`, redirectUris: [], allowedScopes: ["a:read"] } });
    }
  }
  if (!last.server) last.server = lastServer;
  if (!last.user) last.user = userIds[0]!;
  // The shown application grows too: a tool per role, each mapped to a new scope and to a:read.
  for (let t = 0; t < roles; t++) {
    const scope = `s${++n}:use`;
    await send(CreateScopeDocument, { id: last.server, input: { scopeId: scope, name: scope } });
    await send(AddToolDocument, { id: last.server, input: { name: `tool_${n}` } });
    await send(SetToolScopesDocument, { id: last.server, mappings: [{ toolName: `tool_${n}`, scopeIds: [scope, "a:read"] }] });
  }
  const roleIds: string[] = [];
  for (let r = 0; r < roles; r++) {
    const created = await send<any>(CreateRoleDocument, { input: { name: `Role ${++n}`, grants: [{ resourceServerId: last.server, scopeIds: ["a:read"] }] } });
    roleIds.push(created.createRole.id);
  }
  for (let g = 0; g < groups; g++) {
    const group = await send<any>(CreateGroupDocument, { input: { name: `Group ${++n}` } });
    for (const userId of userIds) await send(AddGroupMemberDocument, { groupId: group.createGroup.id, userId });
    for (const roleId of roleIds) await send(CreateGroupBindingDocument, { groupId: group.createGroup.id, input: { roleId, tenantId: h.workspaceId } });
  }
}

describe("the cockpit's screens' SQL statements", () => {
  it("do not grow with the rows the screen shows", async () => {
    await grow(1, 1, 1, 1, 1);
    // One after the other, so each count is its own screen's.
    const small: Partial<Record<Screen, Awaited<ReturnType<typeof cost>>>> = {};
    for (const s of Object.keys(SCREENS) as Screen[]) small[s] = await cost(s);

    await grow(4, 3, 4, 3, 3);
    for (const s of Object.keys(SCREENS) as Screen[]) {
      const large = await cost(s);
      expect(large.rows, `${s} shows more rows`).toBeGreaterThan(small[s]!.rows);
      // The counter is live (0 === 0 would prove nothing).
      expect(small[s]!.count, s).toBeGreaterThan(0);
      expect(large.count, `${s}: ${large.rows} rows\n${large.sql.join("\n")}\n\n${small[s]!.rows} rows:\n${small[s]!.sql.join("\n")}`).toBe(small[s]!.count);
    }
  }, 120_000);
});
