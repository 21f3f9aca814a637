// Upstream OpenID providers of a workspace (/svc/oocmgr/providers and the graph): create, list,
// get, update, delete. Every create, and every update that changes the issuer, fetches and checks
// the discovery document (discovery.ts) before anything is written; a failure is a 400 naming what
// failed. The client secret is sealed with a key derived from the master key (AES-256-GCM, the
// row id as associated data) and never returned: views say only whether one is set. The unit of
// work audits each write (IdentityProvider is an audited model; the secret column is redacted).
import type { Db, DbOrTx } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import { decryptAtRest, encryptAtRest } from "../../shared/crypto";
import type { OutboundFetchOptions } from "../../shared/outbound/fetch-json";
import { discover, type ProviderMetadata } from "./discovery";
import { PROVIDER_LIST, type TokenEndpointAuthMethod, type AllowedFor, type ClaimMapping, type CreateProviderInput, type GroupSyncEntry, type UpdateProviderInput } from "./schemas";
import { FIRST_PAGE, type Page, type PageRequest } from "../../shared/pagination";

export type ProviderRow = NonNullable<Awaited<ReturnType<Db["identityProvider"]["findUnique"]>>>;

/** A provider as the sign-in side uses it (secret opened on demand). */
export interface Provider {
  id: string;
  tenantId: string;
  name: string;
  issuer: string;
  clientId: string;
  scopes: string;
  enabled: boolean;
  emailDomains: string[];
  claimMapping: ClaimMapping;
  jitProvisioning: boolean;
  defaultRoleId: string | null;
  trustEmails: boolean;
  groupSync: GroupSyncEntry[];
  allowedFor: AllowedFor[];
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  hasSecret: boolean;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

export interface ProviderView {
  id: string;
  workspace_id: string;
  tenant_id: string;
  name: string;
  issuer: string;
  client_id: string;
  /** The secret is never shown again: only whether one is stored. */
  client_secret_set: boolean;
  /** client_secret_basic (a public client when no secret is set) or private_key_jwt. */
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  /** private_key_jwt: register this at the provider as the client's jwks_uri (Toolgate's JWKS); null otherwise. */
  client_jwks_uri: string | null;
  scopes: string;
  enabled: boolean;
  email_domains: string[];
  claim_mapping: ClaimMapping;
  jit_provisioning: boolean;
  default_role_id: string | null;
  trust_email: boolean;
  group_sync: GroupSyncEntry[];
  allowed_for: AllowedFor[];
  /** Register this at the provider as the client's redirect URI. */
  redirect_uri: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  discovered_at: string;
  created_at: string;
  updated_at: string;
}

export function toProvider(row: ProviderRow): Provider {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    issuer: row.issuer,
    clientId: row.clientId,
    scopes: row.scopes,
    enabled: row.enabled,
    emailDomains: (row.emailDomains as string[]) ?? [],
    claimMapping: row.claimMapping as ClaimMapping,
    jitProvisioning: row.jitProvisioning,
    defaultRoleId: row.defaultRoleId,
    trustEmails: row.trustEmails,
    groupSync: (row.groupSync as GroupSyncEntry[]) ?? [],
    allowedFor: (row.allowedFor as AllowedFor[]) ?? [],
    authorizationEndpoint: row.authorizationEndpoint,
    tokenEndpoint: row.tokenEndpoint,
    jwksUri: row.jwksUri,
    hasSecret: row.clientSecretEnc !== null,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod === "private_key_jwt" ? "private_key_jwt" : "client_secret_basic",
  };
}

const secretAad = (id: string) => `identity-provider:${id}`;

export class IdentityProviderService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly secretKey: Buffer,
    private readonly outbound: OutboundFetchOptions,
    /** Where providers send the browser back (GET /svc/hmgr/callback under the public URL). */
    readonly callbackUrl: string,
    /** Toolgate's JWKS URL (the key private_key_jwt assertions are signed with is published there). */
    readonly jwksUrl: string,
  ) {}

  view(row: ProviderRow): ProviderView {
    const p = toProvider(row);
    return {
      id: p.id,
      workspace_id: p.tenantId,
      tenant_id: p.tenantId,
      name: p.name,
      issuer: p.issuer,
      client_id: p.clientId,
      client_secret_set: p.hasSecret,
      token_endpoint_auth_method: p.tokenEndpointAuthMethod,
      client_jwks_uri: p.tokenEndpointAuthMethod === "private_key_jwt" ? this.jwksUrl : null,
      scopes: p.scopes,
      enabled: p.enabled,
      email_domains: p.emailDomains,
      claim_mapping: p.claimMapping,
      jit_provisioning: p.jitProvisioning,
      default_role_id: p.defaultRoleId,
      trust_email: p.trustEmails,
      group_sync: p.groupSync,
      allowed_for: p.allowedFor,
      redirect_uri: this.callbackUrl,
      authorization_endpoint: p.authorizationEndpoint,
      token_endpoint: p.tokenEndpoint,
      jwks_uri: p.jwksUri,
      discovered_at: row.discoveredAt.toISOString(),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }

  private async discovered(issuer: string, method: TokenEndpointAuthMethod): Promise<ProviderMetadata> {
    const result = await discover(issuer, this.outbound);
    if (!result.ok) throw badRequest(`issuer: ${result.reason}`);
    const supported = result.metadata.tokenEndpointAuthMethods;
    // Absent, the provider's methods are unknown (OIDC's default is client_secret_basic): not refused.
    if (method === "private_key_jwt" && supported && !supported.includes("private_key_jwt"))
      throw badRequest("token_endpoint_auth_method: the provider's token_endpoint_auth_methods_supported does not list private_key_jwt");
    return result.metadata;
  }

  /** The groups and role an input names must be this workspace's (400 naming the field otherwise). */
  private async checkReferences(tenantId: string, input: { group_sync?: GroupSyncEntry[]; default_role_id?: string | null }): Promise<void> {
    if (input.group_sync?.length) {
      const ids = [...new Set(input.group_sync.map((g) => g.group_id))];
      const found = await this.db.group.count({ where: { tenantId, id: { in: ids } } });
      if (found !== ids.length) throw badRequest("group_sync: names a group that is not in this workspace");
    }
    if (input.default_role_id) {
      const role = await this.db.role.findFirst({ where: { tenantId, id: input.default_role_id }, select: { id: true } });
      if (!role) throw badRequest("default_role_id: not a role of this workspace");
    }
  }

  async create(actor: Actor, input: CreateProviderInput): Promise<ProviderView> {
    assertCanWrite(actor);
    await this.checkReferences(actor.tenantId, input);
    if (input.token_endpoint_auth_method === "private_key_jwt" && input.client_secret) throw badRequest("client_secret: private_key_jwt uses no client secret");
    const metadata = await this.discovered(input.issuer, input.token_endpoint_auth_method);
    const id = this.ids.uuid();
    const now = this.clock.now();
    try {
      const row = await this.db.identityProvider.create({
        data: {
          id,
          tenantId: actor.tenantId,
          name: input.name,
          issuer: input.issuer,
          clientId: input.client_id,
          clientSecretEnc: input.client_secret ? encryptAtRest(this.secretKey, input.client_secret, secretAad(id)) : null,
          tokenEndpointAuthMethod: input.token_endpoint_auth_method,
          scopes: input.scopes.split(/\s+/).join(" "),
          enabled: input.enabled,
          emailDomains: input.email_domains,
          claimMapping: input.claim_mapping,
          jitProvisioning: input.jit_provisioning,
          defaultRoleId: input.default_role_id ?? null,
          trustEmails: input.trust_email,
          groupSync: input.group_sync,
          allowedFor: [...new Set(input.allowed_for)],
          authorizationEndpoint: metadata.authorizationEndpoint,
          tokenEndpoint: metadata.tokenEndpoint,
          jwksUri: metadata.jwksUri,
          discoveredAt: now,
          createdAt: now,
          updatedAt: now,
        },
      });
      return this.view(row);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict("a provider with this name already exists in the workspace");
      throw e;
    }
  }

  /** One page of the workspace's providers, by name (PROVIDER_LIST). */
  async list(actor: Actor, page: PageRequest = FIRST_PAGE): Promise<Page<ProviderView>> {
    assertCanRead(actor);
    const rows = await this.db.identityProvider.findMany({
      where: PROVIDER_LIST.where({ tenantId: actor.tenantId }, page.cursor),
      orderBy: PROVIDER_LIST.orderBy,
      take: page.limit + 1,
    });
    return PROVIDER_LIST.page(rows, page.limit, (r) => this.view(r));
  }

  async get(actor: Actor, id: string): Promise<ProviderView> {
    assertCanRead(actor);
    return this.view(await this.find(this.db, actor.tenantId, id));
  }

  /** PATCH semantics; a changed issuer is discovered (and checked) again, which refreshes the stored endpoints. */
  async update(actor: Actor, id: string, input: UpdateProviderInput): Promise<ProviderView> {
    assertCanWrite(actor);
    const current = await this.find(this.db, actor.tenantId, id);
    await this.checkReferences(actor.tenantId, input);
    const method = input.token_endpoint_auth_method ?? toProvider(current).tokenEndpointAuthMethod;
    if (method === "private_key_jwt" && (input.client_secret || (input.client_secret === undefined && current.clientSecretEnc !== null && input.token_endpoint_auth_method === "private_key_jwt")))
      throw badRequest("client_secret: private_key_jwt uses no client secret (set client_secret to null)");
    // A changed issuer, or a switch to private_key_jwt, is checked against the discovery document again.
    const rediscover = input.issuer !== undefined || (input.token_endpoint_auth_method === "private_key_jwt" && current.tokenEndpointAuthMethod !== "private_key_jwt");
    const metadata = rediscover ? await this.discovered(input.issuer ?? current.issuer, method) : undefined;
    const now = this.clock.now();
    try {
      const row = await this.db.identityProvider.update({
        where: { id: current.id },
        data: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.issuer !== undefined ? { issuer: input.issuer } : {}),
          ...(input.client_id !== undefined ? { clientId: input.client_id } : {}),
          ...(input.client_secret !== undefined ? { clientSecretEnc: input.client_secret === null ? null : encryptAtRest(this.secretKey, input.client_secret, secretAad(id)) } : {}),
          ...(input.token_endpoint_auth_method !== undefined ? { tokenEndpointAuthMethod: input.token_endpoint_auth_method } : {}),
          ...(input.scopes !== undefined ? { scopes: input.scopes.split(/\s+/).join(" ") } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
          ...(input.email_domains !== undefined ? { emailDomains: input.email_domains } : {}),
          ...(input.claim_mapping !== undefined ? { claimMapping: input.claim_mapping } : {}),
          ...(input.jit_provisioning !== undefined ? { jitProvisioning: input.jit_provisioning } : {}),
          ...(input.default_role_id !== undefined ? { defaultRoleId: input.default_role_id } : {}),
          ...(input.trust_email !== undefined ? { trustEmails: input.trust_email } : {}),
          ...(input.group_sync !== undefined ? { groupSync: input.group_sync } : {}),
          ...(input.allowed_for !== undefined ? { allowedFor: [...new Set(input.allowed_for)] } : {}),
          ...(metadata
            ? { authorizationEndpoint: metadata.authorizationEndpoint, tokenEndpoint: metadata.tokenEndpoint, jwksUri: metadata.jwksUri, discoveredAt: now }
            : {}),
          updatedAt: now,
        },
      });
      return this.view(row);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict("a provider with this name already exists in the workspace");
      throw e;
    }
  }

  /** Deletes the provider and its links (people keep their accounts; they sign in another way). */
  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.find(tx, actor.tenantId, id);
      await tx.federatedIdentity.deleteMany({ where: { providerId: id } });
      await tx.identityProvider.delete({ where: { id } });
    });
  }

  private async find(tx: DbOrTx, tenantId: string, id: string): Promise<ProviderRow> {
    const row = await tx.identityProvider.findFirst({ where: { id, tenantId } });
    if (!row) throw notFound("identity provider");
    return row;
  }

  // ---------------------------------------------------------------- for the sign-in side

  /** A provider of this workspace by id (null for another workspace's or an unknown id). */
  async provider(tenantId: string, id: string): Promise<Provider | null> {
    const row = await this.db.identityProvider.findFirst({ where: { id, tenantId } });
    return row ? toProvider(row) : null;
  }

  /** A provider by id whatever its workspace (the callback learns the workspace from the signed flow cookie). */
  async byId(id: string): Promise<Provider | null> {
    const row = await this.db.identityProvider.findUnique({ where: { id } });
    return row ? toProvider(row) : null;
  }

  /** The enabled providers of a workspace offered to this audience, by name. */
  async offered(tenantId: string, audience: AllowedFor): Promise<Provider[]> {
    const rows = await this.db.identityProvider.findMany({ where: { tenantId, enabled: true }, orderBy: [{ name: "asc" }, { id: "asc" }], take: 50 });
    return rows.map(toProvider).filter((p) => p.allowedFor.includes(audience));
  }

  /** The client secret, opened (only the token request to the provider uses it). */
  async secretOf(id: string): Promise<string | null> {
    const row = await this.db.identityProvider.findUnique({ where: { id }, select: { clientSecretEnc: true } });
    return row?.clientSecretEnc ? decryptAtRest(this.secretKey, row.clientSecretEnc, secretAad(id)) : null;
  }
}
