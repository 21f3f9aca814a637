// Evidence exports (/svc/v1/applications/:id/evidence-exports) and `toolgate evidence verify`:
// deterministic files, a signed manifest, a chain per application; a tampered file, a tampered
// manifest, a broken chain and a wrong key each fail verification naming which. Real HTTP, real
// CLI (in process), files downloaded to a temporary directory as an auditor would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import { startToolgate, type Harness } from "./helpers/harness";
import { startMcpServer, SAMPLE_TOOLS, type McpTestServer } from "./helpers/mcp-servers";
import { mapAndActivate, register, rescan } from "./helpers/lifecycle-flow";
import { runCli } from "../src/cli/run";

let h: Harness;
let mcp: McpTestServer;
let app: string;
let reader: string;
let writer: string;
let tmp: string;
let keyFile: string;
const users: Record<string, string> = {};
const PASSWORD = "a long enough password 3";

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  mcp = await startMcpServer({ tools: [...SAMPLE_TOOLS, { name: "ping", description: "pong" }] });
  const rs = await register(h, mcp.url);
  app = rs.id;
  expect((await rescan(h, app)).status).toBe(200);
  await mapAndActivate(h, app, {
    scopes: { "files:read": "Read files", "files:write": "Write files", "files:admin": "Administer" },
    mappings: { read_file: ["files:read"], list_dir: ["files:read"], write_file: ["files:write"], delete_file: ["files:write"] },
    publicTools: ["ping"],
  });
  reader = (await h.admin("POST", "/svc/authmgr/roles", { name: "reader", grants: [{ resource_server_id: app, scope_ids: ["files:read"] }] })).body.id;
  writer = (await h.admin("POST", "/svc/authmgr/roles", { name: "=writer, \"quoted\"", grants: [{ resource_server_id: app, scope_ids: ["files:write", "files:admin"] }] })).body.id;
  for (const name of ["direct", "grouped", "nobody", "suspended", "auditor", "member"]) {
    const r = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `${name}@example.test`, username: name, password: PASSWORD });
    expect(r.status).toBe(201);
    users[name] = r.body.id;
  }
  const bind = async (user: string, role: string) => expect((await h.admin("POST", `/uflow/v2/users/${user}/role-bindings`, { tenant_id: h.workspaceId, role_id: role })).status).toBe(201);
  await bind(users.direct!, reader);
  await bind(users.suspended!, reader);
  const group = (await h.admin("POST", "/uflow/v2/groups", { name: "editors" })).body.id;
  await h.admin("POST", `/uflow/v2/groups/${group}/members`, { user_id: users.grouped });
  expect((await h.admin("POST", `/uflow/v2/groups/${group}/role-bindings`, { tenant_id: h.workspaceId, role_id: writer })).status).toBe(201);
  expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${users.suspended}/suspend`, { reason: "left" })).status).toBe(200);
  await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${users.auditor}`, { membership_type: "readonly_auditor" });
  tmp = mkdtempSync(join(tmpdir(), "evidence-"));
  keyFile = join(tmp, "jwks.json");
  writeFileSync(keyFile, (await h.request("GET", "/oauth/jwks")).text);
});
afterAll(async () => {
  await h?.close();
  await mcp?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const base = () => `/svc/v1/applications/${app}/evidence-exports`;
const sha = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");

async function createExport(token = h.adminToken) {
  const r = await h.request("POST", base(), { token, json: {} });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** Downloads every file of an export into `dir` (as curl -o would). */
async function download(exp: any, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const f of exp.files) {
    const res = await fetch(h.url + f.path, { headers: { authorization: `Bearer ${h.adminToken}` } });
    expect(res.status, f.name).toBe(200);
    writeFileSync(join(dir, f.name), Buffer.from(await res.arrayBuffer()));
  }
}

async function verify(dir: string, ...flags: string[]) {
  let out = "";
  let err = "";
  const status = await runCli(["evidence", "verify", dir, ...(flags.length ? flags : ["--key", keyFile])], {}, { out: (t) => (out += t + "\n"), err: (t) => (err += t + "\n") });
  return { status, report: out ? JSON.parse(out) : undefined, err };
}

describe("an export", () => {
  it("holds one sorted row per user, binding, scope and tool reaching the application; dormant grants are marked", async () => {
    const exp = await createExport();
    expect(exp.export_id).toMatch(/^evx_/);
    expect(exp.seq).toBe(1);
    expect(exp.manifest).toMatchObject({
      format: "toolgate-evidence/1",
      application_id: app,
      workspace_id: h.workspaceId,
      public_tools: ["ping"],
      previous_export: null,
      generated_by: { user_id: h.ownerId, role: "owner" },
      signature: { format: "JWS", alg: "ES256", typ: "toolgate-evidence+jws" },
    });
    expect(exp.manifest.policy_revision.policy_etag).toMatch(/^"/);
    const dir = join(tmp, "one");
    await download(exp, dir);
    const json = JSON.parse(readFileSync(join(dir, "access.json"), "utf8"));
    const csv = readFileSync(join(dir, "access.csv"), "utf8").trimEnd().split("\r\n");
    expect(csv[0]).toBe(json.columns.join(","));
    expect(csv.length - 1).toBe(json.rows.length);
    expect(exp.manifest.files.map((f: any) => [f.name, f.rows])).toEqual([["access.json", json.rows.length], ["access.csv", json.rows.length]]);
    const byUser = (id: string) => json.rows.filter((r: any) => r.user_id === id);
    expect(byUser(users.direct!).map((r: any) => [r.scope_id, r.tool_name, r.granted_through])).toEqual([["files:read", "list_dir", "direct"], ["files:read", "read_file", "direct"]]);
    // files:admin unlocks no tool: one row with an empty tool; files:write's tools sorted.
    expect(byUser(users.grouped!).map((r: any) => [r.scope_id, r.tool_name])).toEqual([["files:admin", null], ["files:write", "delete_file"], ["files:write", "write_file"]]);
    expect(byUser(users.grouped!)[0].granted_through).toMatch(/^group:/);
    expect(byUser(users.nobody!)).toEqual([]);
    expect(byUser(users.suspended!).every((r: any) => r.access_effective === false && r.end_user_status === "suspended")).toBe(true);
    expect(byUser(users.direct!).every((r: any) => r.access_effective === true)).toBe(true);
    // Sorted by user_id, role_id, scope_id, tool_name, binding_id.
    const keys = json.rows.map((r: any) => [r.user_id, r.role_id, r.scope_id, r.tool_name ?? "", r.binding_id].join("\u0000"));
    expect(keys).toEqual([...keys].sort());
    // A role name a spreadsheet would run as a formula is neutralised and quoted in the CSV.
    expect(csv.some((l) => l.includes(`"'=writer, ""quoted"""`))).toBe(true);
    const v = await verify(dir);
    expect(v.report.problems).toEqual([]);
    expect(v.status).toBe(0);
  });

  it("the same state gives byte-identical files; the next export chains to the previous manifest", async () => {
    const a = await createExport();
    const b = await createExport();
    const da = join(tmp, "same-a");
    const db = join(tmp, "same-b");
    await download(a, da);
    await download(b, db);
    for (const f of ["access.json", "access.csv"]) expect(readFileSync(join(db, f)).equals(readFileSync(join(da, f))), f).toBe(true);
    expect(b.manifest.files).toEqual(a.manifest.files);
    expect(b.seq).toBe(a.seq + 1);
    expect(b.manifest.previous_export).toEqual({ export_id: a.export_id, seq: a.seq, manifest_sha256: sha(readFileSync(join(da, "manifest.json"))) });
    expect(a.manifest_sha256).toBe(sha(readFileSync(join(da, "manifest.json"))));
  });

  it("a change of access changes the files", async () => {
    const before = await createExport();
    await h.admin("POST", `/uflow/v2/users/${users.nobody}/role-bindings`, { tenant_id: h.workspaceId, role_id: reader });
    const after = await createExport();
    expect(after.manifest.files[0].sha256).not.toBe(before.manifest.files[0].sha256);
    expect(after.manifest.files[0].rows).toBe(before.manifest.files[0].rows + 2);
  });

  it("is stored and listable (newest first, paginated) and recorded in the audit trail", async () => {
    const all = await h.admin("GET", base());
    expect(all.status).toBe(200);
    const seqs = all.body.items.map((e: any) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x: number, y: number) => y - x));
    const first = await h.admin("GET", `${base()}?limit=1`);
    expect(first.body.items).toHaveLength(1);
    const second = await h.admin("GET", `${base()}?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.items[0].seq).toBe(first.body.items[0].seq - 1);
    const one = await h.admin("GET", `${base()}/${first.body.items[0].export_id}`);
    expect(one.body.manifest_sha256).toBe(first.body.items[0].manifest_sha256);
    const events = await h.db.auditEvent.findMany({ where: { action: "evidence_export.created", tenantId: h.workspaceId } });
    expect(events.length).toBe(seqs.length);
    expect((await h.admin("GET", `${base()}/evx_00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await h.admin("GET", `${base()}/${first.body.items[0].export_id}/files/secrets.txt`)).status).toBe(404);
  });
});

describe("toolgate evidence verify", () => {
  let chain: any[];
  beforeAll(async () => {
    chain = [await createExport(), await createExport(), await createExport()];
    for (const e of chain) await download(e, join(tmp, "chain", e.export_id));
  });
  const copy = (name: string) => {
    const dir = join(tmp, name);
    cpSync(join(tmp, "chain"), dir, { recursive: true });
    return dir;
  };

  it("accepts the chain with the pinned key file and with the JWKS URL", async () => {
    const v = await verify(join(tmp, "chain"));
    expect(v.report).toMatchObject({ ok: true, problems: [] });
    expect(v.report.exports).toHaveLength(3);
    expect((await verify(join(tmp, "chain"), "--jwks", `${h.url}/oauth/jwks`)).status).toBe(0);
  });

  it("a tampered file fails, naming the file", async () => {
    const dir = copy("tampered-file");
    const csv = join(dir, chain[1].export_id, "access.csv");
    writeFileSync(csv, readFileSync(csv, "utf8").replace("true", "fals"));
    const v = await verify(dir);
    expect(v.status).toBe(1);
    expect(v.report.problems).toHaveLength(1);
    expect(v.report.problems[0]).toMatchObject({ kind: "file" });
    expect(v.report.problems[0].message).toMatch(/^file: access\.csv: .*\(tampered file\)$/);
    expect(v.err).toMatch(/tampered file/);
  });

  it("a tampered manifest fails, naming the manifest", async () => {
    const dir = copy("tampered-manifest");
    const m = join(dir, chain[2].export_id, "manifest.json");
    writeFileSync(m, readFileSync(m, "utf8").replace(/"as_of": "[^"]+"/, '"as_of": "2020-01-01T00:00:00.000Z"'));
    const v = await verify(dir);
    expect(v.status).toBe(1);
    expect(v.report.problems.map((p: any) => p.kind)).toEqual(["manifest"]);
    expect(v.report.problems[0].message).toMatch(/tampered manifest/);
  });

  it("a broken chain (an export removed from the middle) fails, naming the chain", async () => {
    const dir = copy("broken-chain");
    rmSync(join(dir, chain[1].export_id), { recursive: true });
    const v = await verify(dir);
    expect(v.status).toBe(1);
    expect(v.report.problems.map((p: any) => p.kind)).toEqual(["chain"]);
    expect(v.report.problems[0].message).toMatch(/broken chain/);
  });

  it("a wrong key fails, naming the signature: another key under the same kid, or a key set without it", async () => {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const kid = chain[0].manifest.signature.kid;
    const impostor = join(tmp, "impostor.json");
    writeFileSync(impostor, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES256" }] }));
    const v = await verify(join(tmp, "chain"), "--key", impostor);
    expect(v.status).toBe(1);
    expect(v.report.problems.map((p: any) => p.kind)).toEqual(["signature", "signature", "signature"]);
    expect(v.report.problems[0].message).toMatch(/wrong key/);
    const other = join(tmp, "other.json");
    writeFileSync(other, JSON.stringify({ ...(await exportJWK(publicKey)), kid: "another-kid", alg: "ES256" }));
    const w = await verify(join(tmp, "chain"), "--key", other);
    expect(w.report.problems[0].message).toMatch(/not in the key set given \(wrong key\)/);
  });

  it("refuses to guess the key set", async () => {
    expect((await verify(join(tmp, "chain"), "--key", keyFile, "--jwks", `${h.url}/oauth/jwks`)).status).toBe(2);
    let err = "";
    const status = await runCli(["evidence", "verify", join(tmp, "chain")], {}, { out: () => undefined, err: (t) => (err += t) });
    expect(status).toBe(2);
  });
});

describe("who may export", () => {
  it("owners and readonly_auditors may create and read exports; a member may not", async () => {
    const auditor = await h.login("auditor@example.test", PASSWORD, h.workspaceId);
    const exp = await createExport(auditor);
    expect(exp.manifest.generated_by).toEqual({ user_id: users.auditor, role: "readonly_auditor" });
    expect((await h.request("GET", base(), { token: auditor })).status).toBe(200);
    const member = await h.login("member@example.test", PASSWORD, h.workspaceId);
    expect((await h.request("POST", base(), { token: member, json: {} })).status).toBe(403);
    expect((await h.request("GET", base(), { token: member })).status).toBe(403);
  });

  it("another workspace's admin cannot see, list, download or create this application's exports (404)", async () => {
    const exp = await createExport();
    const other = await h.createWorkspace("evidence-other@example.test");
    expect((await h.request("POST", base(), { token: other.token, json: {} })).status).toBe(404);
    expect((await h.request("GET", base(), { token: other.token })).status).toBe(404);
    expect((await h.request("GET", `${base()}/${exp.export_id}`, { token: other.token })).status).toBe(404);
    expect((await h.request("GET", `${base()}/${exp.export_id}/files/access.csv`, { token: other.token })).status).toBe(404);
  });
});

describe("scale", () => {
  it("an export of several pages of users and several chunks per file is still byte-identical and verifies", async () => {
    const n = 1200;
    const ids = Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
    // In batches: each write is an audited unit of work, and one of 1,200 rows can outlast a busy machine's transaction timeout.
    for (let at = 0; at < n; at += 200) {
      const batch = ids.slice(at, at + 200);
      await h.db.user.createMany({ data: batch.map((id) => ({ id, tenantId: h.workspaceId, email: `bulk${id.slice(-6)}@example.test`, username: `bulk${id.slice(-6)}` })) });
      await h.db.membership.createMany({ data: batch.map((userId) => ({ tenantId: h.workspaceId, userId })) });
      await h.db.roleBinding.createMany({ data: batch.map((subjectId) => ({ tenantId: h.workspaceId, roleId: reader, subjectType: "user", subjectId })) });
    }
    const a = await createExport();
    const b = await createExport();
    expect(a.manifest.files[0].rows).toBeGreaterThan(2 * n);
    expect(a.manifest.files[0].bytes).toBeGreaterThan(2 * 256 * 1024); // more than two chunks
    expect(b.manifest.files).toEqual(a.manifest.files);
    const dir = join(tmp, "bulk");
    await download(a, dir);
    expect(sha(readFileSync(join(dir, "access.json")))).toBe(a.manifest.files[0].sha256);
    expect((await verify(dir)).status).toBe(0);
  });
});
