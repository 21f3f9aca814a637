// Hostile input against the whole surface: every route the Express app answers (read from its
// router stack, so a new route is covered without touching this file) and every root field of the
// GraphQL schema get a corpus of hostile values (NUL, lone surrogates, over-long strings, deep JSON,
// wrong types, path tricks, control characters, characters above U+FFFF, empty strings) in each
// path parameter, query parameter, body field (and key), Basic credential and GraphQL argument,
// authenticated as the workspace owner so requests reach the handlers. No answer may be a 5xx (or a
// GraphQL INTERNAL_SERVER_ERROR), and a refused request (4xx) must leave every table as it was:
// row counts and a hash of every row are compared around the refused requests of each route.
// Runs on both databases (PostgreSQL is the strict one: NUL and lone surrogates break it).
import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
} from "graphql";
import { Prisma } from "../src/generated/sqlite/client";
import { GRAPHQL_PATH } from "../src/graphql/server";
import { schema } from "../src/graphql/schema";
import { startToolgate, type Harness } from "./helpers/harness";
import { readyServer, type ReadyServer } from "./helpers/lifecycle-flow";

// ------------------------------------------------------------------------------------ corpus

/** Deep JSON: past the hygiene depth limit (32) on purpose. */
const deep = (n: number): unknown => (n === 0 ? "leaf" : { d: deep(n - 1) });

/** Strings as a JSON body or a GraphQL variable carries them (decoded). */
const HOSTILE_STRINGS: string[] = [
  "a\u0000b",
  "\ud800", // lone high surrogate
  "x\udfff", // lone low surrogate
  "\udc00\ud800", // a pair in the wrong order
  "\ud83d\ude00\ud835\udd18", // above U+FFFF, well-formed
  "\u0001\u001b\u007f\u202e\u2028",
  "",
  "x".repeat(20_000),
  "%00%ED%A0%80",
];

/** Values of the wrong type, for JSON bodies. */
const HOSTILE_VALUES: unknown[] = [-1e308, null, {}, ["\u0000"]];

/** JSON text with hostile content, for arguments the graph carries as JSON text (conditions, inputSchemaJson). */
const HOSTILE_JSON_TEXT = ['{"k":"\\u0000"}', '{"\\ud800":1}', '{"k":["\\udfff"]}', JSON.stringify(deep(40))];

/** Hostile object keys (added to every object of a body). */
const HOSTILE_KEYS = ["\u0000", "\ud800", "__proto__"];

/** Raw (already percent-encoded) text for paths, queries, forms and Basic credentials: what a client can put on the wire. */
const HOSTILE_RAW: string[] = [
  "%00",
  "a%00b",
  "%ED%A0%80", // a surrogate in CESU-8: not UTF-8, must not decode to a lone surrogate
  "%C0%80", // overlong NUL
  "%F0%9F%98%80",
  "..%2F..%2Fetc%2Fpasswd",
  "%01%1B%7F",
  "x".repeat(3000),
  "",
];

/** Names tried in every query string (lists, filters), on top of a route's own. */
const COMMON_QUERY_NAMES = ["cursor", "q"];

/** Body fields tried on a route with no sample body below (a new route): the usual names. */
const GENERIC_BODY = { name: "fuzz", nested: { id: "fuzz" } };

// ------------------------------------------------------------------------------------ app under test

let h: Harness;
let rs: ReadyServer;
let fx: Record<string, string>;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_SCAN_TIMEOUT_MS: "5000" } });
  rs = await readyServer(h);
  const admin = async (method: string, path: string, json?: unknown, expected = [200, 201]) => {
    const r = await h.admin(method, path, json);
    if (!expected.includes(r.status)) throw new Error(`fixture ${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const base = `/svc/resource-servers/${rs.id}`;
  const tools = await admin("GET", `${base}/tools`);
  const client = await admin("POST", `${base}/clients`, { client_name: "Fuzz m2m", redirect_uris: [], kind: "m2m", allowed_scopes: ["files:read"] });
  const app = await admin("POST", `${base}/clients`, { client_name: "Fuzz app", redirect_uris: ["https://app.example.test/cb"], kind: "human_app", allowed_scopes: ["files:read"] });
  const member = await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "fuzz-member@example.test", username: "fuzz-member", password: "fuzz member password" });
  const role = await admin("POST", "/svc/authmgr/roles", { name: "Fuzz reader", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] });
  const group = await admin("POST", "/uflow/v2/groups", { name: "Fuzz group" });
  await admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: member.id });
  const binding = await admin("POST", `/uflow/v2/users/${member.id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.id });
  // A drift event to dismiss: deleting a scope of an activated server records one.
  await admin("POST", `${base}/scopes`, { id: "fz:drift", name: "Drift" });
  await admin("DELETE", `${base}/scopes/fz%3Adrift`, undefined, [204]);
  const drift = await admin("GET", `${base}/drift-events`);
  fx = {
    id: rs.id,
    tenant_id: h.workspaceId,
    user_id: member.id,
    client_id: client.client_id,
    client_secret: client.client_secret,
    app_client_id: app.client_id,
    role_id: role.id,
    group_id: group.id,
    binding_id: binding.id,
    tool_id: tools.items[0].tool_id,
    tool_name: tools.items[0].tool_name,
    scope_id: "files:read",
    event_id: drift.items[0]?.id ?? randomUUID(),
    resource: rs.body.resource_url,
  };
  // A sign-in ticket (the hidden field of the authorization page) for the pages' form posts.
  const page = await h.request("GET", `/oauth/authorize?${new URLSearchParams(sampleQuery({ method: "GET", path: "/oauth/authorize" }))}`);
  fx.ticket = /name="ticket" value="([^"]+)"/.exec(page.text)?.[1] ?? "no-ticket";
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await rs?.mcp.close();
  await h?.close();
});

// ------------------------------------------------------------------------------------ routes

interface Route {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
}

/** Every (method, path) of the app, from Express 5's router stack (routers are mounted at the root). */
function collectRoutes(stack: Layer[], prefix = ""): Route[] {
  const out: Route[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        for (const path of [layer.route.path].flat()) out.push({ method: method.toUpperCase(), path: prefix + path });
      }
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === "string" && layer.rawPath !== "/" ? layer.rawPath : "";
      out.push(...collectRoutes(layer.handle.stack, prefix + mount));
    }
  }
  return out;
}

const paramNames = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);

/** A valid value for a path parameter of that name (the other parameters of a fuzzed route). */
function validParam(name: string): string {
  return encodeURIComponent(fx[name] ?? randomUUID());
}

function fillPath(path: string, fuzzed?: { name: string; raw: string }): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => (fuzzed && name === fuzzed.name ? fuzzed.raw : validParam(name)));
}

const isRuntime = (r: Route) => /\/sdk-(policy|manifest)$/.test(r.path);
const isOAuthForm = (r: Route) => r.method === "POST" && r.path.startsWith("/oauth/");
const basicAuthRoutes = (r: Route) => isRuntime(r) || ["/oauth/token", "/oauth/introspect", "/oauth/revoke"].includes(r.path);

/** A valid-looking JSON body per route (placeholders filled from the fixtures), so each fuzzed field reaches the service. */
function sampleBody(r: Route): Record<string, unknown> | undefined {
  const key = `${r.method} ${r.path}`;
  const samples: Record<string, () => Record<string, unknown>> = {
    "PUT /svc/resource-servers/:id/sdk-manifest": () => ({
      tools: [{ name: fx.tool_name, title: "Read", description: "Reads", input_schema: { type: "object", properties: { p: { type: "string" } } }, annotations: { readOnlyHint: true } }],
      sdk_version: "1.0.0",
    }),
    "POST /svc/uflow/auth/login": () => ({ email: "owner@example.test", password: "not the password", workspace_id: fx.tenant_id }),
    "POST /uflow/v2/tenants/:tenant_id/users": () => ({ email: "fz@example.test", username: "fz", password: "fuzz password 1" }),
    "POST /svc/resource-servers": () => ({ name: "fz", public_base_url: "https://fz.example.test", protected_base_path: "/mcp", scopes_supported: ["a:b"], registration_modes: ["prereg"] }),
    "PUT /svc/resource-servers/:id": () => ({ name: "Fuzzed", protected_base_path: rs.body.protected_base_path }),
    "POST /svc/resource-servers/:id/rescan": () => ({ mcp_token: "token" }),
    "PUT /svc/resource-servers/:id/access-policy": () => ({ enabled: false, default_role_id: fx.role_id, first_time_grant: "none" }),
    "PUT /svc/resource-servers/:id/tool-scope-map": () => ({ mappings: [{ tool_name: fx.tool_name, scope_ids: ["files:read"] }] }),
    "POST /svc/resource-servers/:id/tools": () => ({ name: "fz_tool", title: "Fz", description: "d", input_schema: { type: "object", properties: { a: { type: "string", description: "x" } } } }),
    "POST /svc/resource-servers/:id/tools/:tool_id/public": () => ({ confirm: fx.tool_name, is_public: false }),
    "POST /svc/resource-servers/:id/scopes": () => ({ id: "fz:scope", name: "Fz", description: "d" }),
    "POST /svc/resource-servers/:id/clients": () => ({ client_name: "fz", redirect_uris: ["https://fz.example.test/cb"], kind: "human_app", description: "d", allowed_scopes: ["files:read"], token_lifetime: 600 }),
    "POST /svc/resource-servers/:id/clients/:client_id/rotate-secret": () => ({ grace_seconds: 60 }),
    "PATCH /svc/resource-servers/:id/clients/:client_id": () => ({ client_name: "fz", description: "d", redirect_uris: ["https://fz.example.test/cb"], allowed_scopes: ["files:read"] }),
    "POST /svc/clientms/clients": () => ({ client_name: "fz", client_type: "m2m", description: "d", resource_server_id: fx.id }),
    "POST /uflow/v2/tenants/:tenant_id/memberships": () => ({ user_id: fx.user_id, membership_type: "member", status: "active", source: "api", external_id: "ext" }),
    "PATCH /uflow/v2/tenants/:tenant_id/memberships/:user_id": () => ({ status: "active", membership_type: "member", external_id: "ext" }),
    "PATCH /uflow/v2/tenants/:tenant_id/end-users/:user_id": () => ({ plan_tier: "pro", rate_limit_override: '{"rpm":5}', suspended_reason: "r" }),
    "POST /uflow/v2/tenants/:tenant_id/end-users/:user_id/suspend": () => ({ reason: "r" }),
    "POST /svc/authmgr/roles": () => ({ name: "fz", description: "d", grants: [{ resource_server_id: fx.id, scope_ids: ["files:read"] }] }),
    "PUT /svc/authmgr/roles/:role_id": () => ({ name: "Fuzz reader", description: "d", grants: [{ resource_server_id: fx.id, scope_ids: ["files:read"] }] }),
    "POST /uflow/v2/groups": () => ({ name: "fz", description: "d" }),
    "POST /uflow/v2/groups/:group_id/members": () => ({ user_id: fx.user_id }),
  };
  const binding = () => ({ tenant_id: fx.tenant_id, role_id: fx.role_id, scope_type: "resource_server", scope_id: fx.id, conditions: { mfa: true, note: "n", nested: { k: ["v"] } }, expires_at: "2999-01-01T00:00:00Z" });
  if (r.method === "POST" && r.path.endsWith("/role-bindings")) return binding();
  return samples[key]?.();
}

/** OAuth form parameters per endpoint (valid-looking), fuzzed one at a time. */
function sampleForm(r: Route): Record<string, string> {
  switch (r.path) {
    // The client authenticates with Basic (credentialsFor).
    case "/oauth/token":
      return { grant_type: "client_credentials", resource: fx.resource, scope: "files:read" };
    case "/oauth/introspect":
      return { token: "not-a-token", token_type_hint: "access_token" };
    case "/oauth/revoke":
      return { token: "not-a-token", token_type_hint: "refresh_token" };
    case "/oauth/authorize/login":
      return { ticket: fx.ticket, email: "owner@example.test", password: "wrong" };
    case "/oauth/authorize/consent":
      return { ticket: fx.ticket, decision: "deny" };
    default:
      return { client_id: fx.client_id, token: "t", code: "c", redirect_uri: "https://app.example.test/cb", scope: "files:read" };
  }
}

/** Query parameters a route reads beyond the common ones. */
function sampleQuery(r: Route): Record<string, string> {
  if (r.path === "/oauth/authorize") {
    return {
      response_type: "code",
      client_id: fx.app_client_id,
      redirect_uri: "https://app.example.test/cb",
      scope: "files:read",
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      resource: fx.resource,
    };
  }
  return {};
}

// ------------------------------------------------------------------------------------ requests

interface Case {
  where: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** GraphQL: the response carries an execution result to inspect. */
  graphql?: boolean;
}

interface Outcome {
  c: Case;
  status: number;
  text: string;
  refused: boolean;
  internal: boolean;
}

/**
 * 4xx answers that record something on purpose: a runtime's rejected manifest is kept as the
 * server's manifest status (valid: false, with its errors) for GET .../sdk-manifest-status.
 */
const RECORDED_REJECTION = /^\{"error":"manifest rejected: /;

const adminHeaders = () => ({ authorization: `Bearer ${h.adminToken}` });
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
/** Basic credentials of the server for runtime routes, the m2m client for OAuth routes. */
function credentialsFor(r: Route): Record<string, string> {
  if (isRuntime(r) || r.path === "/oauth/introspect") return { authorization: basic(rs.id, rs.secret) };
  if (basicAuthRoutes(r)) return { authorization: basic(fx.client_id, fx.client_secret) };
  return adminHeaders();
}

/** node:http with keep-alive (a third cheaper than fetch per request, and the run is CPU-bound). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function request(c: Case): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(h.url + c.path, { method: c.method, headers: c.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(c.body);
  });
}

async function send(c: Case): Promise<Outcome> {
  const res = await request(c);
  const text = res.text;
  let internal = false;
  let refused = res.status >= 400 && res.status < 500 && !RECORDED_REJECTION.test(text);
  if (c.graphql && res.status < 500) {
    const parsed = (() => {
      try {
        return JSON.parse(text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
      } catch {
        return undefined;
      }
    })();
    internal = (parsed?.errors ?? []).some((e) => e.extensions?.code === "INTERNAL_SERVER_ERROR");
    // A mutation refused during execution answers 200 with errors and no data for the field.
    refused ||= (parsed?.errors?.length ?? 0) > 0 && (parsed?.data === null || parsed?.data === undefined || Object.values(parsed.data as object).every((v) => v === null));
  }
  return { c, status: res.status, text, refused, internal };
}

async function pool<T, R>(items: T[], run: (t: T) => Promise<R>, width = 8): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await run(items[i]!);
      }
    }),
  );
  return out;
}

// ------------------------------------------------------------------------------------ state

/**
 * Tables that record attempts: a refused attempt is meant to write them (a posted sign-in page's
 * ticket is spent whether the password was right or not, issue 9; a refused login is counted by the
 * sign-in throttle, login-throttle.ts; a refused registration or document fetch uses up its
 * address's allowance, clients/address-limits.ts; the audit trail's chain head moves with a
 * refusal's event), so they are not compared.
 */
const ATTEMPT_RECORDS = new Set(["usedLoginTicket", "loginFailure", "rateWindow", "auditChain"]);
const MODELS = Object.values(Prisma.ModelName)
  .map((m) => m.charAt(0).toLowerCase() + m.slice(1))
  .filter((m) => !ATTEMPT_RECORDS.has(m));

/** Row counts of every table and a hash of every row (tables are small here). */
async function snapshot(): Promise<Record<string, string>> {
  // Clients' last-used stamps are written in the background, batched: write what accepted
  // requests left pending now, so it is not mistaken for a change made by a refused one.
  await h.services.oauth.lastUsed.flush();
  // The same for the audit trail's counted events (tokens refused, failed client authentication).
  await h.services.audit.counters.flush();
  const db = h.db as unknown as Record<string, { findMany(): Promise<unknown[]> }>;
  // A refused attempt is meant to leave an audit event saying so (outcome failure: a failed
  // sign-in, docs/audit-and-integrations.md); it must never leave one of a change.
  const tables = await Promise.all(MODELS.map((model) => (model === "auditEvent" ? h.db.auditEvent.findMany({ where: { outcome: "success" } }) : db[model]!.findMany())));
  const out: Record<string, string> = {};
  MODELS.forEach((model, i) => {
    const rows = tables[i]!;
    const lines = rows.map((row) => JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? String(v) : v))).sort();
    out[model] = `${rows.length} rows ${createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16)}`;
  });
  return out;
}

function changedTables(a: Record<string, string>, b: Record<string, string>): string[] {
  return MODELS.filter((m) => a[m] !== b[m]).map((m) => `${m}: ${a[m]} -> ${b[m]}`);
}

// ------------------------------------------------------------------------------------ the run

interface Report {
  requests: number;
  fiveHundreds: string[];
  internalErrors: string[];
  stateChanges: string[];
  checkedBatches: number;
}

const describeCase = (o: Outcome) => `${o.c.method} ${o.c.path.slice(0, 160)} [${o.c.where}] -> ${o.status} ${o.text.slice(0, 160)}`;

/** NUL, surrogates and undecodable bytes as they look on the wire: JSON escapes, percent-encoding, deep nesting. */
const ESCAPED_UNSTORABLE = /\\u0000|\\ud[89a-f][0-9a-f]{2}|(\{"d":){32}/i;
const ENCODED_UNSTORABLE = /%00|%ED%[AB]|%C0%80|%FF/i;

/** Whether a case carries input that must be refused whatever the route does with it (for batching only). */
function carriesUnstorable(c: Case): boolean {
  const auth = c.headers.authorization ?? "";
  const basicText = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString("latin1") : "";
  const form = c.headers["content-type"] === "application/x-www-form-urlencoded";
  return ENCODED_UNSTORABLE.test(c.path) || ENCODED_UNSTORABLE.test(basicText) || (c.body !== undefined && (form ? ENCODED_UNSTORABLE : ESCAPED_UNSTORABLE).test(c.body));
}

/**
 * Sends one route's cases, in two parallel batches (those that carry unstorable input, which must
 * all be refused, then the rest) so that each batch is usually all refused or nearly so.
 */
async function runCases(cases: Case[], report: Report): Promise<void> {
  await runBatch(cases.filter(carriesUnstorable), report);
  await runBatch(cases.filter((c) => !carriesUnstorable(c)), report);
}

/**
 * Sends a batch in parallel and checks it for 5xx. Accepted cases are sent once more: a value
 * stored lossily no longer matches itself, and the retry of the same request then failed (a
 * manifest with a lone surrogate collided with its own stored copy). Then checks that the refused
 * ones changed nothing: nothing may change around a batch of refused requests; when accepted
 * requests of the batch changed something, the refused ones are sent again as their own batch
 * (and, if that is mixed again, one at a time).
 */
async function runBatch(cases: Case[], report: Report): Promise<void> {
  if (cases.length === 0) return;
  const before = await snapshot();
  const outcomes = await pool(cases, send);
  const accepted = outcomes.filter((o) => !o.refused && o.status < 400).map((o) => o.c);
  const replayed = await pool(accepted, send);
  report.requests += outcomes.length + replayed.length;
  for (const o of [...outcomes, ...replayed]) {
    if (o.status >= 500) report.fiveHundreds.push(describeCase(o));
    if (o.internal) report.internalErrors.push(describeCase(o));
  }
  const refused = outcomes.filter((o) => o.refused).map((o) => o.c);
  if (refused.length === 0) return;
  const after = await snapshot();
  const changes = changedTables(before, after);
  report.checkedBatches++;
  if (changes.length === 0) return; // nothing changed at all, so no refused request changed anything
  if (refused.length === outcomes.length) {
    report.stateChanges.push(`${cases[0]!.method} ${cases[0]!.path.slice(0, 120)} (${cases.length} refused requests): ${changes.join("; ")}`);
    return;
  }
  // Accepted requests changed something: send the refused ones again, alone, to tell.
  const second = await pool(refused, send);
  report.requests += second.length;
  if (second.every((o) => o.refused)) {
    const alone = changedTables(after, await snapshot());
    report.checkedBatches++;
    if (alone.length) report.stateChanges.push(`${refused[0]!.method} ${refused[0]!.path.slice(0, 120)} (${refused.length} refused requests): ${alone.join("; ")}`);
    return;
  }
  for (const c of refused) {
    const b = await snapshot();
    const o = await send(c);
    report.requests++;
    if (!o.refused) continue;
    const changes = changedTables(b, await snapshot());
    report.checkedBatches++;
    if (changes.length) report.stateChanges.push(`${describeCase(o)}: ${changes.join("; ")}`);
  }
}

/** Every leaf (and every object, for hostile keys) of a JSON value, as paths. */
function leafPaths(value: unknown, path: (string | number)[] = []): { leaves: (string | number)[][]; objects: (string | number)[][] } {
  const leaves: (string | number)[][] = [];
  const objects: (string | number)[][] = [];
  if (Array.isArray(value)) value.forEach((v, i) => merge(leafPaths(v, [...path, i])));
  else if (value !== null && typeof value === "object") {
    objects.push(path);
    for (const [k, v] of Object.entries(value)) merge(leafPaths(v, [...path, k]));
  } else leaves.push(path);
  return { leaves, objects };
  function merge(r: { leaves: (string | number)[][]; objects: (string | number)[][] }) {
    leaves.push(...r.leaves);
    objects.push(...r.objects);
  }
}

function leafValue(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<any>((v, k) => v?.[k], value);
}

function setAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), replacement);
  return copy;
}

function addKey(value: unknown, path: (string | number)[], key: string): unknown {
  if (path.length === 0) return { ...(value as object), [key]: "x" };
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]!] = addKey(copy[path[0]!], path.slice(1), key);
  return copy;
}

/** The hostile cases of one REST route: path parameters, query, body (JSON or form), Basic credentials. */
function restCases(r: Route): Case[] {
  const cases: Case[] = [];
  const creds = credentialsFor(r);
  // Path parameters: each in turn, the others valid. Runtime routes must present the same id in
  // their Basic credentials, so the fuzzed id is also the credential's (decoded) user name.
  for (const name of paramNames(r.path)) {
    for (const raw of HOSTILE_RAW) {
      let headers = { ...creds };
      if (isRuntime(r) && name === "id") {
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(raw);
        } catch {
          decoded = undefined;
        }
        if (decoded !== undefined) headers = { authorization: basic(encodeURIComponent(decoded).replace(/%20/g, "+"), rs.secret) };
      }
      const json = r.method === "PUT" || r.method === "POST" || r.method === "PATCH" ? sampleBody(r) : undefined;
      cases.push({
        where: `path :${name}=${raw.slice(0, 20)}`,
        method: r.method,
        path: fillPath(r.path, { name, raw }),
        headers: json ? { ...headers, "content-type": "application/json" } : headers,
        body: json ? JSON.stringify(json) : undefined,
      });
    }
  }
  // Query parameters (GET only: other methods would act on the valid fixtures).
  if (r.method === "GET") {
    const base = sampleQuery(r);
    const names = [...new Set([...COMMON_QUERY_NAMES, ...Object.keys(base)])];
    for (const name of names) {
      for (const raw of HOSTILE_RAW) {
        const q = Object.entries({ ...base, [name]: undefined })
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`);
        q.push(`${name}=${raw}`);
        cases.push({ where: `query ${name}=${raw.slice(0, 20)}`, method: "GET", path: `${fillPath(r.path)}?${q.join("&")}`, headers: creds });
      }
    }
    cases.push({ where: "query repeated", method: "GET", path: `${fillPath(r.path)}?q=1&q=%00`, headers: creds });
    cases.push({ where: "query key NUL", method: "GET", path: `${fillPath(r.path)}?a%00b=1`, headers: creds });
  }
  // Bodies.
  if (r.method === "POST" || r.method === "PUT" || r.method === "PATCH") {
    const path = fillPath(r.path);
    if (isOAuthForm(r)) {
      const form = sampleForm(r);
      for (const name of Object.keys(form)) {
        for (const raw of HOSTILE_RAW) {
          const fields = Object.entries(form).map(([k, v]) => `${k}=${k === name ? raw : encodeURIComponent(v)}`);
          cases.push({ where: `form ${name}=${raw.slice(0, 20)}`, method: r.method, path, headers: { ...creds, "content-type": "application/x-www-form-urlencoded" }, body: fields.join("&") });
        }
      }
      cases.push({ where: "form key NUL", method: r.method, path, headers: { ...creds, "content-type": "application/x-www-form-urlencoded" }, body: "a%00b=1" });
    } else {
      const sample = sampleBody(r) ?? GENERIC_BODY;
      const { leaves, objects } = leafPaths(sample);
      const json = (body: unknown, where: string) => cases.push({ where, method: r.method, path, headers: { ...creds, "content-type": "application/json" }, body: JSON.stringify(body) });
      for (const leaf of leaves) {
        for (const s of HOSTILE_STRINGS) json(setAt(sample, leaf, s), `body ${leaf.join(".")}=${JSON.stringify(s).slice(0, 20)}`);
        for (const v of HOSTILE_VALUES) json(setAt(sample, leaf, v), `body ${leaf.join(".")}=${JSON.stringify(v).slice(0, 20)}`);
      }
      for (const obj of objects) {
        for (const key of HOSTILE_KEYS) json(addKey(sample, obj, key), `body key ${obj.join(".")}.${JSON.stringify(key)}`);
      }
      for (const whole of [[], "text", 1, null, deep(40), [sample]]) json(whole, `body ${JSON.stringify(whole).slice(0, 20)}`);
    }
  }
  // Basic credentials (decoded by the server with decodeURIComponent).
  if (basicAuthRoutes(r)) {
    const secret = isRuntime(r) || r.path === "/oauth/introspect" ? rs.secret : fx.client_secret;
    const id = isRuntime(r) || r.path === "/oauth/introspect" ? rs.id : fx.client_id;
    for (const raw of HOSTILE_RAW) {
      for (const headers of [{ authorization: basic(raw, secret) }, { authorization: basic(id, raw) }]) {
        const form = isOAuthForm(r) ? Object.entries(sampleForm(r)).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&") : undefined;
        const json = !form && r.method !== "GET" ? JSON.stringify(sampleBody(r) ?? {}) : undefined;
        cases.push({
          where: `basic ${headers.authorization.slice(0, 30)}`,
          method: r.method,
          path: fillPath(r.path),
          headers: { ...headers, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : json ? { "content-type": "application/json" } : {}) },
          body: form ?? json,
        });
      }
    }
  }
  return cases;
}

// ------------------------------------------------------------------------------------ GraphQL

/** Valid values by argument or input field name; `Type.field` keys win over plain ones. */
const FIXED_ARG_VALUES: Record<string, () => unknown> = {
  "CreateRoleBindingInput.scopeId": () => fx.id,
  "CreateScopeInput.scopeId": () => "fz:graph",
  "ToolScopeMappingInput.toolId": () => null,
  tenantId: () => fx.tenant_id,
  workspaceId: () => fx.tenant_id,
  tokenLifetime: () => 600,
  scopesSupported: () => ["a:b"],
  resourceServerId: () => fx.id,
  groupId: () => fx.group_id,
  userId: () => fx.user_id,
  roleId: () => fx.role_id,
  defaultRoleId: () => fx.role_id,
  toolId: () => fx.tool_id,
  eventId: () => fx.event_id,
  clientId: () => fx.client_id,
  scopeId: () => fx.scope_id,
  scopeIds: () => ["files:read"],
  allowedScopes: () => ["files:read"],
  toolName: () => fx.tool_name,
  confirm: () => fx.tool_name,
  publicBaseUrl: () => "https://fz.example.test",
  protectedBasePath: () => "/fz",
  redirectUris: () => ["https://fz.example.test/cb"],
  grantTypes: () => ["client_credentials"],
  conditions: () => '{"mfa":true,"nested":{"k":"v"}}',
  inputSchemaJson: () => '{"type":"object","properties":{"a":{"type":"string"}}}',
  rateLimitOverride: () => '{"rpm":5}',
  expiresAt: () => "2999-01-01T00:00:00Z",
  scopeType: () => "resource_server",
  email: () => "fz@example.test",
  first: () => 5,
  after: () => null,
  mcpToken: () => "token",
};

/** The id a root field's `id` argument names, from the field's name. */
function idFor(fieldName: string): string {
  const f = fieldName.toLowerCase();
  if (f.includes("rolebinding")) return fx.binding_id;
  if (f.includes("role")) return fx.role_id;
  if (f.includes("group")) return fx.group_id;
  if (f.includes("user")) return fx.user_id;
  if (f.includes("resourceserver") || f.includes("introspection")) return fx.id;
  return randomUUID();
}

/** A valid-looking value for an input type (every field of an input object, optional ones too). */
function sampleInput(type: GraphQLInputType, name: string, fieldName: string, depth = 0, parent = ""): unknown {
  const fixed = FIXED_ARG_VALUES[`${parent}.${name}`] ?? FIXED_ARG_VALUES[name];
  if (fixed) return fixed();
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) return [sampleInput(t.ofType, name, fieldName, depth + 1)];
  if (isInputObjectType(t)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(t.getFields())) out[f.name] = sampleInput(f.type, f.name, fieldName, depth + 1, t.name);
    return out;
  }
  if (isEnumType(t)) return t.getValues()[0]!.value;
  switch ((t as GraphQLNamedType).name) {
    case "ID":
      return name === "id" ? idFor(fieldName) : randomUUID();
    case "Int":
      return 1;
    case "Float":
      return 1.5;
    case "Boolean":
      return name === "isPublic" ? false : name === "enabled" ? false : true;
    case "DateTime":
      return "2999-01-01T00:00:00Z";
    default:
      return `fz ${name}`;
  }
}

/** Selection for a field's return type: `{ __typename }` for objects, nothing for scalars. */
const selectionFor = (field: GraphQLField<unknown, unknown>) => (isLeafType(getNamedType(field.type)) ? "" : " { __typename }");

function printType(t: GraphQLInputType): string {
  if (isNonNullType(t)) return `${printType(t.ofType)}!`;
  if (isListType(t)) return `[${printType(t.ofType)}]`;
  return (t as GraphQLNamedType).name;
}

/** A GraphQL literal for a value of the given type (strings escaped as JSON, which GraphQL reads alike). */
function literal(value: unknown, type: GraphQLInputType): string {
  if (value === null || value === undefined) return "null";
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) return `[${(value as unknown[]).map((v) => literal(v, t.ofType)).join(", ")}]`;
  if (isInputObjectType(t)) {
    const fields = t.getFields();
    return `{${Object.entries(value as object)
      .map(([k, v]) => `${k}: ${literal(v, fields[k]!.type)}`)
      .join(", ")}}`;
  }
  if (isEnumType(t)) return String(value);
  return JSON.stringify(value);
}

function graphqlCase(where: string, query: string, variables: Record<string, unknown>): Case {
  return {
    where,
    method: "POST",
    path: GRAPHQL_PATH,
    headers: { ...adminHeaders(), "content-type": "application/json", accept: "application/graphql-response+json, application/json" },
    body: JSON.stringify({ query, variables }),
    graphql: true,
  };
}

/** The hostile cases of one root field: each string leaf of its arguments in turn, as a variable and as a literal. */
function graphqlCases(kind: "query" | "mutation", field: GraphQLField<unknown, unknown>): Case[] {
  const args: readonly GraphQLArgument[] = field.args;
  if (args.length === 0) return [graphqlCase(`${field.name}`, `${kind} { ${field.name}${selectionFor(field)} }`, {})];
  const values = Object.fromEntries(args.map((a) => [a.name, sampleInput(a.type, a.name, field.name)]));
  const declared = args.map((a) => `$${a.name}: ${printType(a.type)}`).join(", ");
  const passed = args.map((a) => `${a.name}: $${a.name}`).join(", ");
  const viaVariables = `${kind} Fuzz(${declared}) { ${field.name}(${passed})${selectionFor(field)} }`;
  const cases: Case[] = [];
  const { leaves } = leafPaths(values);
  for (const leaf of leaves) {
    for (const s of HOSTILE_STRINGS) cases.push(graphqlCase(`${field.name} $${leaf.join(".")}=${JSON.stringify(s).slice(0, 20)}`, viaVariables, setAt(values, leaf, s) as Record<string, unknown>));
    const jsonText = typeof leafValue(values, leaf) === "string" && String(leafValue(values, leaf)).startsWith("{");
    for (const s of jsonText ? HOSTILE_JSON_TEXT : []) cases.push(graphqlCase(`${field.name} $${leaf.join(".")}=${s.slice(0, 20)}`, viaVariables, setAt(values, leaf, s) as Record<string, unknown>));
    cases.push(graphqlCase(`${field.name} $${leaf.join(".")}=null`, viaVariables, setAt(values, leaf, null) as Record<string, unknown>));
    // The same hostile text inlined in the document (GraphQL string escapes).
    for (const s of ["a\u0000b", "\ud800"]) {
      const inlined = setAt(values, leaf, s) as Record<string, unknown>;
      const printed = args.map((a) => `${a.name}: ${literal(inlined[a.name], a.type)}`).join(", ");
      cases.push(graphqlCase(`${field.name} literal ${leaf.join(".")}=${JSON.stringify(s)}`, `${kind} { ${field.name}(${printed})${selectionFor(field)} }`, {}));
    }
    // Queries may also come as GET, the variables in the query string.
    if (kind === "query") {
      const params = new URLSearchParams({ query: viaVariables, variables: JSON.stringify(setAt(values, leaf, "a\ud800\u0000")) });
      cases.push({ ...graphqlCase(`${field.name} GET $${leaf.join(".")}`, viaVariables, {}), method: "GET", path: `${GRAPHQL_PATH}?${params}`, body: undefined });
    }
  }
  return cases;
}

// ------------------------------------------------------------------------------------ tests

const failures = (r: Report) =>
  [
    `${r.requests} requests, ${r.fiveHundreds.length} answered 5xx, ${r.internalErrors.length} INTERNAL_SERVER_ERROR, ${r.stateChanges.length} refused batches changed state (${r.checkedBatches} batches checked)`,
    ...r.fiveHundreds.slice(0, 40),
    ...r.internalErrors.slice(0, 40),
    ...r.stateChanges.slice(0, 20),
  ].join("\n");

describe("fuzz: hostile input never answers 5xx and a refused request changes nothing", () => {
  it("collects every route from the app (cross-checked against a few known ones)", () => {
    const routes = collectRoutes((h.toolgate.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys).toEqual(expect.arrayContaining(["PUT /svc/resource-servers/:id/sdk-manifest", "POST /oauth/token", "GET /oauth/authorize", "PATCH /svc/resource-servers/:id/clients/:client_id", "GET /uflow/v2/users/:user_id/effective-access"]));
    expect(routes.length).toBeGreaterThan(60);
    // GraphQL is mounted as a handler, not a route: its operations are fuzzed from the schema.
    expect((h.toolgate.app as unknown as { router: { stack: Layer[] } }).router.stack.some((l) => l.rawPath === GRAPHQL_PATH)).toBe(true);
  });

  it("REST: every route, every path parameter, query parameter, body field and Basic credential", async () => {
    const routes = collectRoutes((h.toolgate.app as unknown as { router: { stack: Layer[] } }).router.stack);
    // DELETE last: their fuzzed parameter never names a fixture, but keep the fixtures for the others.
    const ordered = [...routes.filter((r) => r.method !== "DELETE"), ...routes.filter((r) => r.method === "DELETE")];
    const report: Report = { requests: 0, fiveHundreds: [], internalErrors: [], stateChanges: [], checkedBatches: 0 };
    for (const r of ordered) await runCases(restCases(r), report);
    const ok = report.fiveHundreds.length === 0 && report.stateChanges.length === 0;
    expect(ok, failures(report)).toBe(true);
  }, 240_000);

  it("GraphQL: every argument of every query and mutation, as variables and as literals", async () => {
    const report: Report = { requests: 0, fiveHundreds: [], internalErrors: [], stateChanges: [], checkedBatches: 0 };
    const roots: ["query" | "mutation", GraphQLField<unknown, unknown>][] = [
      ...Object.values(schema.getQueryType()!.getFields()).map((f) => ["query", f] as ["query", GraphQLField<unknown, unknown>]),
      ...Object.values(schema.getMutationType()!.getFields()).map((f) => ["mutation", f] as ["mutation", GraphQLField<unknown, unknown>]),
    ];
    for (const [kind, field] of roots) await runCases(graphqlCases(kind, field), report);
    const ok = report.fiveHundreds.length === 0 && report.internalErrors.length === 0 && report.stateChanges.length === 0;
    expect(ok, failures(report)).toBe(true);
  }, 240_000);
});
