// House rules that the compiler cannot check (docs/architecture.md, decisions/0001): each table is
// written by one module, modules do not import each other in cycles, and no code outside storage
// names a cache key or bypasses the unit of work.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : files(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));
const moduleOf = (path: string) => (path.startsWith("modules/") ? path.split("/")[1]! : undefined);
/** The owner a path writes as: its module, or "storage" for the write path itself. */
const writerOf = (path: string) => moduleOf(path) ?? (path.startsWith("storage/") ? "storage" : undefined);

/** The owner of every table (docs/architecture.md "Who writes which table"). */
const OWNERS: Record<string, string> = {
  workspace: "tenancy",
  user: "tenancy",
  membership: "tenancy",
  endUserState: "tenancy",
  loginFailure: "tenancy",
  role: "rbac",
  roleGrant: "rbac",
  group: "rbac",
  groupMember: "rbac",
  roleBinding: "rbac",
  resourceServer: "resource-servers",
  tool: "resource-servers",
  scope: "resource-servers",
  toolScope: "resource-servers",
  accessPolicy: "resource-servers",
  driftEvent: "resource-servers",
  sdkManifest: "resource-servers",
  client: "clients",
  connection: "clients",
  rateWindow: "clients",
  signingKey: "tokens",
  revokedToken: "tokens",
  revokedFamily: "tokens",
  authorizationCode: "signin",
  refreshToken: "signin",
  serverSignIn: "signin",
  usedLoginTicket: "signin",
  browserSession: "signin",
  rememberedConsent: "signin",
  totpFactor: "signin",
  recoveryCode: "signin",
  passkeyCredential: "signin",
  webAuthnChallenge: "signin",
  usedClientAssertion: "oauth",
  identityProvider: "identity-providers",
  federatedIdentity: "identity-providers",
  // The audit trail's chain is kept by the one write path itself (src/storage/audit-trail.ts,
  // docs/decisions/0038-audit-trail.md): appended by every unit of work, pruned with a checkpoint.
  auditEvent: "storage",
  auditChain: "storage",
  auditCheckpoint: "storage",
  webhookSubscription: "integrations",
  webhookDelivery: "integrations",
  eventCursor: "integrations",
  agent: "agents",
  evidenceExport: "evidence",
  evidenceChunk: "evidence",
  idJagTrust: "trusts",
  idJagSubject: "trusts",
  workloadTrust: "trusts",
  accessRequest: "access-requests",
};

describe("architecture", () => {
  it("each table is written by its owner module only", () => {
    const offences: string[] = [];
    const write = /\b(?:tx|db|this\.db)\.([a-zA-Z]+)\.(?:create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)\(/g;
    for (const { path, text } of sources) {
      for (const m of text.matchAll(write)) {
        const owner = OWNERS[m[1]!];
        if (!owner) offences.push(`${path}: writes ${m[1]}, a table with no owner listed here`);
        else if (writerOf(path) !== owner) offences.push(`${path}: writes ${m[1]} (owned by ${owner})`);
      }
    }
    expect(offences).toEqual([]);
  });

  it("modules do not import each other in a cycle", () => {
    const edges = new Map<string, Set<string>>();
    for (const { path, text } of sources) {
      const from = moduleOf(path);
      if (!from) continue;
      for (const m of text.matchAll(/from "(\.[^"]+)"/g)) {
        const to = moduleOf(normalize(join(dirname(path), m[1]!)));
        if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (trail.includes(node)) return cycles.push([...trail.slice(trail.indexOf(node)), node].join(" -> "));
      for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
    };
    for (const node of edges.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it("only storage names cache keys or opens batch transactions; services never bypass the unit of work", () => {
    const offences: string[] = [];
    for (const { path, text: source } of sources) {
      if (path.startsWith("storage/")) continue;
      const text = source.replace(/^\s*(\/\/|\*|\/\*).*$/gm, ""); // code only, not comments
      if (/\$transaction\(\s*\[/.test(text)) offences.push(`${path}: batch $transaction([...]) is not tracked`);
      if (/\$executeRaw(?:Unsafe)?\s*[`(]\s*["'`]?\s*(INSERT|UPDATE|DELETE)/i.test(text)) offences.push(`${path}: raw SQL write bypasses the unit of work`);
      if (/["'`](member|bindings|role|client|connection|server|resource|policy|keys|revoked_token|revoked_family|webhooks):/.test(text)) offences.push(`${path}: names a cache key`);
    }
    expect(offences).toEqual([]);
  });
  it("toolgate/sdk depends on nothing of Toolgate's server: only its own files, node:, jose and the official MCP SDK", () => {
    const offences: string[] = [];
    const allowed = /^(node:|jose$|@modelcontextprotocol\/sdk\/)/;
    for (const { path, text } of sources.filter((s) => s.path.startsWith("sdk/"))) {
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith(".")) {
          const target = normalize(join(dirname(path), spec));
          if (!target.startsWith("sdk/")) offences.push(`${path}: imports ${spec} (outside src/sdk)`);
        } else if (!allowed.test(spec)) offences.push(`${path}: imports the package ${spec}`);
      }
    }
    expect(sources.some((s) => s.path === "sdk/index.ts")).toBe(true);
    expect(offences).toEqual([]);
  });
  it("toolgate/agent depends on nothing of Toolgate's server: only its own files, node: and types of the official MCP SDK", () => {
    const offences: string[] = [];
    for (const { path, text } of sources.filter((s) => s.path.startsWith("agent/"))) {
      for (const m of text.matchAll(/(?:^|\n)\s*(import|export)(\s+type)?[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
        const spec = (m[3] ?? m[4])!;
        const typeOnly = m[2] !== undefined;
        if (spec.startsWith(".")) {
          if (!normalize(join(dirname(path), spec)).startsWith("agent/")) offences.push(`${path}: imports ${spec} (outside src/agent)`);
        } else if (!spec.startsWith("node:") && !(typeOnly && spec.startsWith("@modelcontextprotocol/sdk/"))) offences.push(`${path}: imports ${spec}${typeOnly ? "" : " (a value, not a type)"}`);
      }
    }
    expect(sources.some((s) => s.path === "agent/index.ts")).toBe(true);
    expect(offences).toEqual([]);
  });
});
