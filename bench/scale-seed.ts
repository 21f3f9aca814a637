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
// The first `probes` users are the ones the write loops of the benchmark touch; they are returned.
import { randomBytes, randomUUID } from "node:crypto";
import Database from "libsql";
import pg from "pg";

type ColType = "text" | "int" | "ts" | "json";
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
}

export interface SeedResult {
  userIds: string[];
  /** One seeded server, client and group (full seeds), for the benchmark's check that the app reads them. */
  sample: { serverId?: string; clientId?: string; groupId?: string };
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
      rows: () => times(servers, (k) => [randomUUID(), ws, serverIds[k], "files:read", "files:read", now]),
    },
    {
      name: "Role",
      cols: [["id", "text"], ["tenantId", "text"], ["name", "text"], ["createdAt", "ts"], ["updatedAt", "ts"]],
      rows: () => times(roles, (r) => [roleIds[r], ws, `scale-role-${r}-${run}`, now, now]),
    },
    {
      name: "RoleGrant",
      cols: [["id", "text"], ["tenantId", "text"], ["roleId", "text"], ["resourceServerId", "text"], ["scopeKey", "text"]],
      rows: () => times(servers > 0 ? roles : 0, (r) => [randomUUID(), ws, roleIds[r], serverIds[r % servers], "files:read"]),
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
        ["createdAt", "ts"], ["createdBy", "text"],
      ],
      rows: function* () {
        for (let i = 0; i < spec.users; i++) yield [randomUUID(), ws, roleIds[i % roles], "user", userIds[i], "api", now, spec.adminUserId];
        for (let g = 0; g < groups; g++) yield [randomUUID(), ws, roleIds[g % roles], "group", groupIds[g], "api", now, spec.adminUserId];
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
        let n = 0;
        for (const row of t.rows()) {
          for (let i = 0; i < row.length; i++) if (tsCols[i] && typeof row[i] === "string") row[i] = (row[i] as string).replace("Z", "+00:00");
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

const PG_TYPES: Record<ColType, string> = { text: "text", int: "int4", ts: "timestamp(3)", json: "jsonb" };
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
