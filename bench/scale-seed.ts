// Bulk seeding for the scale benchmark (bench/scale.ts): an installation of N users written straight
// into the database with raw SQL, matching prisma/schema.prisma column for column.
//
// Formats, checked against rows the app itself wrote:
// - SQLite (Prisma 7 + libsql): DateTime is TEXT "2026-11-23T14:45:58.251+00:00", Json is
//   TEXT holding the JSON document.
// - PostgreSQL: DateTime is TIMESTAMP(3) holding UTC (an ISO string with "Z" cast to timestamp keeps
//   the UTC wall time), Json is jsonb.
//
// What one seed writes (all in the bench's workspace, created by `toolgate bootstrap`):
// - `users` users, each with an active Membership (member), an active EndUserState row and one
//   direct RoleBinding (subjectType "user", tenant-wide) to one of the seeded roles; with
//   `full` also a GroupMember row in one of users/100 groups;
// - with `full`: `servers` resource servers (state ready, prereg, distinct resourceUrl, a dummy
//   introspection secret hash, scope "files:read" with its Scope row), `roles` roles each granting
//   files:read on one seeded server (RoleGrant), one RoleBinding per group, and users/10 m2m prereg
//   clients (approved, dummy secret hashes).
// - with `catalog` (bench/aggregates.ts): tools, a big server, its roles and bindings, two export
//   servers (CatalogSpec below); RoleBinding then also writes expiresAt.
// The first `probes` users are the ones the write loops of the benchmark touch; they are returned.
import { randomBytes, randomUUID } from "node:crypto";
import Database from "libsql";
import pg from "pg";

type ColType = "text" | "int" | "ts" | "json" | "bool";
interface Table {
  name: string;
  cols: [string, ColType][];
  rows(): Iterable<unknown[]>;
}

export interface SeedSpec {
  workspaceId: string;
  adminUserId: string;
  /** Users to write (the probes are the first of them). */
  users: number;
  /** Also groups, resource servers, roles, clients (the "N" installation); false = only the users. */
  full: boolean;
  servers: number;
  roles: number;
  /** With `full`: a tool catalog and the access it takes to read the aggregate views (bench/aggregates.ts). */
  catalog?: CatalogSpec;
}

/**
 * The aggregate views' installation on top of a full seed:
 * - every server gets `toolsPerServer` tools, each mapped to its files:read scope;
 * - the first server ("big") gets `bigTools` tools over `bigScopes` scopes (tool k -> scope k mod
 *   bigScopes; every 100th tool public), and `bigRoles` roles granting bigScopes/bigRoles scopes
 *   each on it, each bound directly to `bigUsersPerRole` users (one in ten of those bindings
 *   expiring in 3 days, one in twenty already expired) and to two groups;
 * - the last two servers (which no base role grants) are the evidence exports' subjects: a role
 *   granting files:read on each, bound to `exportUsers[0]` and `exportUsers[1]` users, so their
 *   exports have exactly toolsPerServer × that many rows.
 */
export interface CatalogSpec {
  toolsPerServer: number;
  bigTools: number;
  bigScopes: number;
  bigRoles: number;
  bigUsersPerRole: number;
  exportUsers: [number, number];
}

export interface SeedResult {
  userIds: string[];
  /** One seeded server, client and group (full seeds), for the benchmark's check that the app reads them. */
  sample: { serverId?: string; clientId?: string; groupId?: string; bigServerId?: string; exportServerIds?: [string, string] };
  rows: number;
  ms: number;
  counts: Record<string, number>;
}

const dummyHash = () => randomBytes(32).toString("base64url");

function plan(spec: SeedSpec, userIds: string[], sample: SeedResult["sample"]): Table[] {
  const now = new Date().toISOString();
  const ws = spec.workspaceId;
  const groups = spec.full ? Math.max(1, Math.floor(spec.users / 100)) : 0;
  const servers = spec.full ? spec.servers : 0;
  const clients = spec.full ? Math.floor(spec.users / 10) : 0;
  // Without servers there is nothing for a role to grant: the "empty" seed's probes get a role
  // with no grants (the write loops bind the benchmark's own role anyway).
  const roles = Math.max(1, spec.full ? spec.roles : 1);
  const serverIds = Array.from({ length: servers }, () => randomUUID());
  const roleIds = Array.from({ length: roles }, () => randomUUID());
  const groupIds = Array.from({ length: groups }, () => randomUUID());
  const run = randomBytes(3).toString("hex");
  const clientIds = Array.from({ length: clients }, () => `tgc_${randomBytes(16).toString("base64url")}`);
  Object.assign(sample, { serverId: serverIds[0], clientId: clientIds[0], groupId: groupIds[0] });
  const cat = spec.full ? spec.catalog : undefined;
  if (cat) Object.assign(sample, { bigServerId: serverIds[0], exportServerIds: [serverIds[servers - 1], serverIds[servers - 2]] });
  const readScopeIds = serverIds.map(() => randomUUID());
  const bigScopeIds = Array.from({ length: cat?.bigScopes ?? 0 }, () => randomUUID());
  const bigScopeKey = (s: number) => `big:${String(s).padStart(3, "0")}`;
  const bigRoleIds = Array.from({ length: cat?.bigRoles ?? 0 }, () => randomUUID());
  const exportRoleIds = cat ? [randomUUID(), randomUUID()] : [];
  const later = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  const toolIds = cat ? Array.from({ length: servers * cat.toolsPerServer }, () => randomUUID()) : [];
  const toolId = (k: number, t: number) => toolIds[k * cat!.toolsPerServer + t];
  const bigToolIds = Array.from({ length: cat?.bigTools ?? 0 }, () => randomUUID());
  const bigToolId = (t: number) => bigToolIds[t];
  function* times<T>(n: number, f: (i: number) => T): Iterable<T> {
    for (let i = 0; i < n; i++) yield f(i);
  }
  return [
    {
      name: "ResourceServer",
      cols: [
        ["id", "text"], ["tenantId", "text"], ["name", "text"], ["publicBaseUrl", "text"], ["protectedBasePath", "text"],
        ["resourceUrl", "text"], ["scopesSupported", "json"], ["registrationModes", "json"], ["validationMode", "text"],
        ["introspectionSecretHash", "text"], ["state", "text"], ["scanGeneration", "int"], ["lastSuccessfulGeneration", "int"],
        ["lastScanStatus", "text"], ["setupCompletedAt", "ts"], ["createdAt", "ts"], ["updatedAt", "ts"],
      ],
      rows: () =>
        times(servers, (k) => {
          const base = `https://rs-${k}-${run}.scale.example.test`;
          return [serverIds[k], ws, `scale rs ${k}`, base, "/mcp", `${base}/mcp`, '["files:read"]', '["prereg"]', "auto", dummyHash(), "ready", 1, 1, "success", now, now, now];
        }),
    },
    {
      name: "Scope",
      cols: [["id", "text"], ["tenantId", "text"], ["resourceServerId", "text"], ["key", "text"], ["name", "text"], ["createdAt", "ts"]],
      rows: function* () {
        yield* times(servers, (k) => [readScopeIds[k], ws, serverIds[k], "files:read", "files:read", now]);
        yield* times(bigScopeIds.length, (s) => [bigScopeIds[s], ws, serverIds[0], bigScopeKey(s), bigScopeKey(s), now]);
      },
    },
    {
      name: "Tool",
      cols: [["id", "text"], ["tenantId", "text"], ["resourceServerId", "text"], ["name", "text"], ["source", "text"], ["isPublic", "bool"], ["createdAt", "ts"], ["updatedAt", "ts"]],
      rows: function* () {
        if (!cat) return;
        for (let k = 0; k < servers; k++) for (let t = 0; t < cat.toolsPerServer; t++) yield [toolId(k, t), ws, serverIds[k], `tool_${t}`, "manual", false, now, now];
        for (let t = 0; t < cat.bigTools; t++) yield [bigToolId(t), ws, serverIds[0], `big_tool_${String(t).padStart(4, "0")}`, "manual", t % 100 === 99, now, now];
      },
    },
    {
      name: "ToolScope",
      cols: [["toolId", "text"], ["scopeId", "text"], ["tenantId", "text"], ["resourceServerId", "text"]],
      rows: function* () {
        if (!cat) return;
        for (let k = 0; k < servers; k++) for (let t = 0; t < cat.toolsPerServer; t++) yield [toolId(k, t), readScopeIds[k], ws, serverIds[k]];
        for (let t = 0; t < cat.bigTools; t++) if (t % 100 !== 99) yield [bigToolId(t), bigScopeIds[t % cat.bigScopes], ws, serverIds[0]];
      },
    },
    {
      name: "Role",
      cols: [["id", "text"], ["tenantId", "text"], ["name", "text"], ["createdAt", "ts"], ["updatedAt", "ts"]],
      rows: function* () {
        yield* times(roles, (r) => [roleIds[r], ws, `scale-role-${r}-${run}`, now, now]);
        yield* times(bigRoleIds.length, (r) => [bigRoleIds[r], ws, `big-role-${r}-${run}`, now, now]);
        yield* times(exportRoleIds.length, (r) => [exportRoleIds[r], ws, `export-role-${r}-${run}`, now, now]);
      },
    },
    {
      name: "RoleGrant",
      cols: [["id", "text"], ["tenantId", "text"], ["roleId", "text"], ["resourceServerId", "text"], ["scopeKey", "text"]],
      rows: function* () {
        yield* times(servers > 0 ? roles : 0, (r) => [randomUUID(), ws, roleIds[r], serverIds[r % servers], "files:read"]);
        for (let r = 0; r < bigRoleIds.length; r++)
          for (let s = r; s < bigScopeIds.length; s += bigRoleIds.length) yield [randomUUID(), ws, bigRoleIds[r], serverIds[0], bigScopeKey(s)];
        for (let r = 0; r < exportRoleIds.length; r++) yield [randomUUID(), ws, exportRoleIds[r], serverIds[servers - 1 - r], "files:read"];
      },
    },
    {
      name: "Group",
      cols: [["id", "text"], ["tenantId", "text"], ["name", "text"], ["createdAt", "ts"]],
      rows: () => times(groups, (g) => [groupIds[g], ws, `scale-group-${g}-${run}`, now]),
    },
    {
      name: "User",
      cols: [["id", "text"], ["tenantId", "text"], ["email", "text"], ["username", "text"], ["createdAt", "ts"], ["updatedAt", "ts"]],
      rows: () => times(spec.users, (i) => [userIds[i], ws, `scale-${i}-${run}@example.test`, `scale${i}`, now, now]),
    },
    {
      name: "Membership",
      cols: [
        ["id", "text"], ["tenantId", "text"], ["userId", "text"], ["membershipType", "text"], ["status", "text"], ["source", "text"],
        ["createdAt", "ts"], ["updatedAt", "ts"],
      ],
      rows: () => times(spec.users, (i) => [randomUUID(), ws, userIds[i], "member", "active", "api", now, now]),
    },
    {
      name: "EndUserState",
      cols: [["id", "text"], ["tenantId", "text"], ["userId", "text"], ["status", "text"], ["createdAt", "ts"], ["updatedAt", "ts"]],
      rows: () => times(spec.users, (i) => [randomUUID(), ws, userIds[i], "active", now, now]),
    },
    {
      name: "GroupMember",
      cols: [["groupId", "text"], ["userId", "text"], ["tenantId", "text"], ["createdAt", "ts"]],
      rows: () => times(groups > 0 ? spec.users : 0, (i) => [groupIds[i % groups], userIds[i], ws, now]),
    },
    {
      name: "RoleBinding",
      cols: [
        ["id", "text"], ["tenantId", "text"], ["roleId", "text"], ["subjectType", "text"], ["subjectId", "text"], ["source", "text"],
        ["createdAt", "ts"], ["createdBy", "text"], ["expiresAt", "ts"],
      ],
      rows: function* () {
        for (let i = 0; i < spec.users; i++) yield [randomUUID(), ws, roleIds[i % roles], "user", userIds[i], "api", now, spec.adminUserId, null];
        for (let g = 0; g < groups; g++) yield [randomUUID(), ws, roleIds[g % roles], "group", groupIds[g], "api", now, spec.adminUserId, null];
        if (!cat) return;
        for (let r = 0; r < bigRoleIds.length; r++) {
          for (let j = 0; j < cat.bigUsersPerRole; j++) {
            const expires = j % 10 === 3 ? later(3) : j % 20 === 7 ? later(-1) : null;
            yield [randomUUID(), ws, bigRoleIds[r], "user", userIds[(r * cat.bigUsersPerRole + j) % spec.users], "api", now, spec.adminUserId, expires];
          }
          for (const g of [2 * r, 2 * r + 1]) if (g < groups) yield [randomUUID(), ws, bigRoleIds[r], "group", groupIds[g], "api", now, spec.adminUserId, null];
        }
        for (let r = 0; r < exportRoleIds.length; r++)
          for (let j = 0; j < cat.exportUsers[r]!; j++) yield [randomUUID(), ws, exportRoleIds[r], "user", userIds[j % spec.users], "api", now, spec.adminUserId, null];
      },
    },
    {
      name: "Client",
      cols: [
        ["id", "text"], ["clientId", "text"], ["tenantId", "text"], ["resourceServerId", "text"], ["clientName", "text"], ["kind", "text"],
        ["registrationMode", "text"], ["status", "text"], ["secretHash", "text"], ["tokenEndpointAuthMethod", "text"], ["redirectUris", "json"],
        ["grantTypes", "json"], ["allowedScopes", "json"], ["tokenLifetime", "int"], ["createdAt", "ts"], ["updatedAt", "ts"],
      ],
      rows: () =>
        times(clients, (j) => [
          randomUUID(), clientIds[j], ws, serverIds[j % servers], `scale client ${j}`, "m2m", "prereg", "approved",
          dummyHash(), "client_secret_basic", "[]", '["client_credentials"]', '["files:read"]', 3600, now, now,
        ]),
    },
  ];
}

/** Seeds an SQLite file (no server may have it open): one transaction, one prepared statement per table. */
export function seedSqlite(file: string, spec: SeedSpec): SeedResult {
  const t0 = performance.now();
  const userIds = Array.from({ length: spec.users }, () => randomUUID());
  const db = new Database(file);
  const counts: Record<string, number> = {};
  const sample: SeedResult["sample"] = {};
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("synchronous = NORMAL");
    const tables = plan(spec, userIds, sample);
    db.transaction(() => {
      for (const t of tables) {
        const stmt = db.prepare(`INSERT INTO "${t.name}" (${t.cols.map(([c]) => `"${c}"`).join(", ")}) VALUES (${t.cols.map(() => "?").join(", ")})`);
        const tsCols = t.cols.map(([, type]) => type === "ts");
        const boolCols = t.cols.map(([, type]) => type === "bool");
        let n = 0;
        for (const row of t.rows()) {
          for (let i = 0; i < row.length; i++) {
            if (tsCols[i] && typeof row[i] === "string") row[i] = (row[i] as string).replace("Z", "+00:00");
            else if (boolCols[i] && typeof row[i] === "boolean") row[i] = row[i] ? 1 : 0;
          }
          stmt.run(row);
          n++;
        }
        counts[t.name] = n;
      }
    })();
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return { userIds, sample, rows: Object.values(counts).reduce((a, b) => a + b, 0), ms: performance.now() - t0, counts };
}

const PG_TYPES: Record<ColType, string> = { text: "text", int: "int4", ts: "timestamp(3)", json: "jsonb", bool: "bool" };
const PG_BATCH = 5000;

/** Seeds a PostgreSQL database: one transaction, INSERT ... SELECT FROM unnest(arrays) in batches of 5000, then ANALYZE. */
export async function seedPostgres(url: string, spec: SeedSpec): Promise<SeedResult> {
  const t0 = performance.now();
  const userIds = Array.from({ length: spec.users }, () => randomUUID());
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const counts: Record<string, number> = {};
  const sample: SeedResult["sample"] = {};
  try {
    await client.query("BEGIN");
    for (const t of plan(spec, userIds, sample)) {
      const sql =
        `INSERT INTO "${t.name}" (${t.cols.map(([c]) => `"${c}"`).join(", ")}) ` +
        `SELECT * FROM unnest(${t.cols.map(([, type], i) => `$${i + 1}::${PG_TYPES[type]}[]`).join(", ")})`;
      let columns: unknown[][] = t.cols.map(() => []);
      let n = 0;
      const flush = async () => {
        if (columns[0]!.length === 0) return;
        await client.query(sql, columns);
        columns = t.cols.map(() => []);
      };
      for (const row of t.rows()) {
        for (let i = 0; i < row.length; i++) columns[i]!.push(row[i] ?? null);
        n++;
        if (columns[0]!.length >= PG_BATCH) await flush();
      }
      await flush();
      counts[t.name] = n;
    }
    await client.query("COMMIT");
    // What autovacuum would have done long ago on an installation of this size.
    await client.query("ANALYZE");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    await client.end();
  }
  return { userIds, sample, rows: Object.values(counts).reduce((a, b) => a + b, 0), ms: performance.now() - t0, counts };
}
