// What the audit trail records of a write: the one table of the codebase that says which rows are
// audited and how a row is summarised (docs/decisions/0038-audit-trail.md). The unit of work
// (unit-of-work.ts) feeds every row a transaction reads or writes on these tables into an
// AuditCapture; at commit it becomes the before/after summary of the transaction's one event.
//
// Secrets never reach a summary, by two rules that need no call site to remember them:
// - by field name: a column whose name says it holds a secret, a hash or a ciphertext
//   (SECRET_FIELD), or one a model lists in `redact`, is left out; the summary names it in
//   `redacted` when the write set or changed it;
// - by value: a string in the shape of our sealed values (shared/crypto.ts encryptAtRest,
//   `v1.<iv>.<tag>.<ciphertext>`) or a password hash (`scrypt$...`) is left out whatever its column.
// Tables not listed are not audited: protocol state (codes, refresh tokens, used tickets and
// assertions, revocations), throttle counts, the audit trail itself and webhook deliveries.
import { getDatamodel } from "../generated/pothos-types";

type Row = Record<string, unknown>;

export interface AuditedModel {
  /** The entity's name in actions and summaries (`role_binding.created`). */
  entity: string;
  /** The columns that identify a row (joined with ":" when several). */
  idFields: readonly string[];
  /** Bookkeeping columns: never summarised, and an update that sets only these is no event. */
  ignore?: readonly string[];
  /** Columns never summarised besides those SECRET_FIELD matches. */
  redact?: readonly string[];
}

const STAMPS = ["updatedAt"] as const;

export const AUDITED_MODELS: Readonly<Record<string, AuditedModel>> = {
  Workspace: { entity: "workspace", idFields: ["id"] },
  User: { entity: "user", idFields: ["id"], ignore: STAMPS },
  Membership: { entity: "membership", idFields: ["id"], ignore: STAMPS },
  EndUserState: { entity: "end_user", idFields: ["id"], ignore: STAMPS },
  Role: { entity: "role", idFields: ["id"], ignore: STAMPS },
  RoleGrant: { entity: "role_grant", idFields: ["id"] },
  Group: { entity: "group", idFields: ["id"] },
  GroupMember: { entity: "group_member", idFields: ["groupId", "userId"] },
  RoleBinding: { entity: "role_binding", idFields: ["id"] },
  ResourceServer: { entity: "resource_server", idFields: ["id"], ignore: STAMPS },
  Tool: { entity: "tool", idFields: ["id"], ignore: STAMPS },
  Scope: { entity: "scope", idFields: ["id"] },
  ToolScope: { entity: "tool_scope", idFields: ["toolId", "scopeId"] },
  AccessPolicy: { entity: "access_policy", idFields: ["resourceServerId"], ignore: STAMPS },
  DriftEvent: { entity: "drift_event", idFields: ["id"] },
  SdkManifest: { entity: "sdk_manifest", idFields: ["resourceServerId"] },
  // lastUsedAt is written in batches by the token endpoint's recorder: bookkeeping, not a change.
  Client: { entity: "client", idFields: ["id"], ignore: [...STAMPS, "lastUsedAt"] },
  Connection: { entity: "connection", idFields: ["id"], ignore: [...STAMPS, "lastConnectedAt", "scopesGranted"] },
  SigningKey: { entity: "signing_key", idFields: ["kid"] },
  // Some endpoints carry their credential in the URL itself (chat services' incoming-webhook URLs):
  // the trail and the log stream name that it changed, not what it is.
  WebhookSubscription: { entity: "webhook_subscription", idFields: ["id"], ignore: [...STAMPS, "consecutiveFailures", "circuitOpenUntil"], redact: ["url"] },
  Agent: { entity: "agent", idFields: ["id"], ignore: STAMPS },
  // Second factors: who enrolled, confirmed or removed one is a security event. The per-sign-in
  // bookkeeping (TOTP's last accepted step, a passkey's signature counter) is not.
  TotpFactor: { entity: "totp_factor", idFields: ["userId"], ignore: ["lastStep"] },
  PasskeyCredential: { entity: "passkey", idFields: ["id"], ignore: ["counter", "lastUsedAt"] },
  IdJagTrust: { entity: "id_jag_trust", idFields: ["id"], ignore: STAMPS },
  WorkloadTrust: { entity: "workload_trust", idFields: ["id"], ignore: STAMPS },
  IdJagSubject: { entity: "id_jag_subject", idFields: ["id"] },
  // lastConnectedAt is written in batches off the jwt-bearer grant's path: bookkeeping.
  AccessRequest: { entity: "access_request", idFields: ["id"], ignore: [...STAMPS, "lastConnectedAt"] },
  // The client secret column is sealed (clientSecretEnc: redacted by name); discovery stamps are bookkeeping.
  IdentityProvider: { entity: "identity_provider", idFields: ["id"], ignore: [...STAMPS, "discoveredAt"] },
  // Each sign-in stamps the link (lastSignInAt, lastAmr, lastAcr, email); the sign-in's own event says so.
  FederatedIdentity: { entity: "federated_identity", idFields: ["id"], ignore: ["lastSignInAt", "lastAmr", "lastAcr", "email"] },
};

/** A column that holds a secret, a hash of one, or a ciphertext. */
export const SECRET_FIELD = /secret|password|hash|cipher|private|enc$|(^|[a-z])token$/i;
/** Values that are secrets whatever their column: sealed values (encryptAtRest) and password hashes. */
const SECRET_VALUE = /^(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|scrypt\$.*)$/s;

/** At most this many changes are listed in one event; the rest are counted. */
export const MAX_CHANGES = 25;
const MAX_STRING = 256;
const MAX_JSON = 1024;

export type ChangeOp = "created" | "updated" | "deleted";

export interface AuditChange {
  entity: string;
  op: ChangeOp;
  id: string | null;
  /** The workspace of the row (tenantId), when it has one. */
  tenantId: string | null;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  redacted?: string[];
  /** Rows changed by a bulk write whose rows are not known (updateMany/deleteMany of an untracked table). */
  count?: number;
}

const MODELS = getDatamodel().datamodel.models as Record<string, { fields: readonly { name: string; kind: string; type: string }[] }>;
/** The scalar columns of each model (Json and DateTime included, relations excluded), from the Prisma datamodel. */
const SCALARS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(MODELS).map(([name, m]) => [name, new Set(m.fields.filter((f) => f.kind === "scalar" || f.kind === "enum").map((f) => f.name))]),
);
/** Each model's relation fields and the model they lead to (rows read through a relation are remembered too). */
const RELATIONS: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(
  Object.entries(MODELS).map(([name, m]) => [name, new Map(m.fields.filter((f) => f.kind === "object").map((f) => [f.name, f.type]))]),
);

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function isSecretField(model: AuditedModel, field: string): boolean {
  return SECRET_FIELD.test(field) || !!model.redact?.includes(field);
}

/** A value as a summary shows it: bounded, dates as ISO text, sealed values never. */
function shown(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string") {
    if (SECRET_VALUE.test(value)) return undefined;
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (typeof value === "bigint") return value.toString();
  if (value !== null && typeof value === "object") {
    const text = JSON.stringify(value);
    if (text === undefined) return undefined;
    if (text.length > MAX_JSON || SECRET_VALUE.test(text)) return `[json, ${text.length} bytes]`;
    return value;
  }
  return value;
}

interface Summary {
  fields: Record<string, unknown>;
  redacted: string[];
}

/** The summary of `row`'s columns in `only` (all of its scalar columns when omitted). */
function summarize(modelName: string, model: AuditedModel, row: Row, only?: Iterable<string>): Summary {
  const scalars = SCALARS.get(modelName);
  const fields: Record<string, unknown> = {};
  const redacted: string[] = [];
  for (const field of only ?? Object.keys(row)) {
    if (!(field in row) || (scalars && !scalars.has(field)) || model.ignore?.includes(field)) continue;
    if (isSecretField(model, field)) {
      if (row[field] !== null) redacted.push(snake(field)); // a secret column that is empty holds nothing to hide
      continue;
    }
    const value = shown(row[field]);
    if (value === undefined) redacted.push(snake(field));
    else fields[snake(field)] = value;
  }
  return { fields, redacted };
}

function idOf(model: AuditedModel, row: Row): string | null {
  const parts = model.idFields.map((f) => row[f]);
  return parts.every((p) => typeof p === "string" || typeof p === "number") ? parts.join(":") : null;
}

const tenantOf = (row: Row): string | null => (typeof row.tenantId === "string" ? row.tenantId : null);

const same = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : JSON.stringify(a) === JSON.stringify(b));

/** The data keys of a write that are real columns (relation writes and Prisma operators are left to the row read back). */
function writtenFields(data: unknown): string[] {
  return data !== null && typeof data === "object" && !Array.isArray(data) ? Object.keys(data) : [];
}

/** True when an update sets nothing but the model's bookkeeping columns. */
export function onlyBookkeeping(model: AuditedModel, data: unknown): boolean {
  const fields = writtenFields(data);
  return fields.length > 0 && fields.every((f) => model.ignore?.includes(f));
}

/** What one unit of work read and wrote on audited tables. */
export class AuditCapture {
  /** The last known state of each row this transaction read or wrote ("<Model> <id>"), for `before`. */
  private readonly seen = new Map<string, Row>();
  readonly changes: AuditChange[] = [];
  /** The changes made by single-row writes: what the transaction was about (bulk writes are mostly its consequences). */
  private readonly single = new Set<AuditChange>();

  /** The change an unnamed event is named after: the first single-row write, else the first change. */
  primary(): AuditChange | undefined {
    return this.changes.find((c) => this.single.has(c)) ?? this.changes[0];
  }

  /** Rows a read returned, with the rows it read through relations (a membership's user's end-user state). */
  remember(modelName: string, rows: unknown, depth = 0): void {
    if (rows === null || rows === undefined || depth > 3) return;
    const model = AUDITED_MODELS[modelName];
    const relations = RELATIONS.get(modelName);
    for (const row of (Array.isArray(rows) ? rows : [rows]) as Row[]) {
      if (row === null || typeof row !== "object") continue;
      const id = model ? idOf(model, row) : null;
      if (id !== null) this.seen.set(`${modelName} ${id}`, { ...this.seen.get(`${modelName} ${id}`), ...row });
      for (const [field, target] of relations ?? []) if (row[field] !== undefined) this.remember(target, row[field], depth + 1);
    }
  }

  /** Rows a create, update, upsert or delete returned (a delete returns the row as it was). */
  written(modelName: string, operation: string, args: Record<string, any>, result: unknown): void {
    const model = AUDITED_MODELS[modelName];
    if (!model || result === null || result === undefined) return;
    for (const row of (Array.isArray(result) ? result : [result]) as Row[]) {
      const id = idOf(model, row);
      const key = `${modelName} ${id}`;
      const before = id === null ? undefined : this.seen.get(key);
      if (operation === "delete") {
        this.push(modelName, model, "deleted", row, { ...before, ...row }, undefined, undefined, true);
        if (id !== null) this.seen.delete(key);
        continue;
      }
      const op: ChangeOp = operation.startsWith("create") || (operation === "upsert" && !before) ? "created" : "updated";
      const data = operation === "upsert" ? (before ? args.update : args.create) : args.data;
      this.push(modelName, model, op, row, before, row, op === "updated" ? writtenFields(data) : undefined, !Array.isArray(result));
      if (id !== null) this.seen.set(key, { ...before, ...row });
    }
  }

  /** A createMany: the rows as given. */
  createdMany(modelName: string, data: unknown): void {
    const model = AUDITED_MODELS[modelName];
    if (!model) return;
    for (const row of (Array.isArray(data) ? data : [data]) as Row[]) this.push(modelName, model, "created", row, undefined, row);
  }

  /** An updateMany/deleteMany whose rows were read first (tracked tables: the unit of work reads them anyway). */
  bulk(modelName: string, operation: "updateMany" | "deleteMany", rows: readonly Row[], data: unknown): void {
    const model = AUDITED_MODELS[modelName];
    if (!model) return;
    for (const row of rows) {
      if (operation === "deleteMany") this.push(modelName, model, "deleted", row, row, undefined);
      else this.push(modelName, model, "updated", row, row, { ...row, ...(data as Row) }, writtenFields(data));
    }
  }

  /** An updateMany/deleteMany of an untracked table: only how many rows it touched. */
  counted(modelName: string, operation: "updateMany" | "deleteMany", count: number): void {
    const model = AUDITED_MODELS[modelName];
    if (!model || count === 0) return;
    this.changes.push({ entity: model.entity, op: operation === "deleteMany" ? "deleted" : "updated", id: null, tenantId: null, count });
  }

  private push(modelName: string, model: AuditedModel, op: ChangeOp, row: Row, before: Row | undefined, after: Row | undefined, written?: string[], single = false): void {
    const change: AuditChange = { entity: model.entity, op, id: idOf(model, row), tenantId: tenantOf(row) ?? (before ? tenantOf(before) : null) };
    const redacted = new Set<string>();
    if (op === "updated") {
      // Only what this write set and actually changed (all of it when the row was not read before).
      const fields = (written ?? Object.keys(after ?? {})).filter((f) => !before || !(f in before) || !same(before[f], after?.[f]));
      if (fields.length === 0 || fields.every((f) => model.ignore?.includes(f))) return;
      const b = before ? summarize(modelName, model, before, fields.filter((f) => f in before)) : undefined;
      const a = summarize(modelName, model, after ?? {}, fields);
      if (b && Object.keys(b.fields).length > 0) change.before = b.fields;
      if (Object.keys(a.fields).length > 0) change.after = a.fields;
      for (const r of [...(b?.redacted ?? []), ...a.redacted]) redacted.add(r);
    } else {
      const s = summarize(modelName, model, (op === "created" ? after : before) ?? row);
      if (op === "created") change.after = s.fields;
      else change.before = s.fields;
      for (const r of s.redacted) redacted.add(r);
    }
    if (redacted.size > 0) change.redacted = [...redacted].sort();
    this.changes.push(change);
    if (single) this.single.add(change);
  }
}
