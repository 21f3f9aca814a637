// Setup and activation: the checklist (GET setup, POST validate), the preview of the policy that
// activation would enforce, activation itself (needs_setup -> ready, once), and test-login, a
// readiness signal for OAuth and the runtime policy. All of it reads the same facts through
// buildChecklist, so what the screen shows green is exactly what activation accepts.
import { recordAuditEvent, type Db, type DbOrTx } from "../../../storage";
import { AUDIT_ACTIONS } from "../../audit";
import type { Clock } from "../../../shared/clock";
import { epochSeconds } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import { conflict } from "../../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../../shared/actor";
import type { JwtService } from "../../tokens";
import type { ResourceServer } from "../../../generated/sqlite/client";
import type { ResourceServerRegistry } from "../registry";
import type { ResourceServerService } from "../resource-server-service";
import type { ResourceServerView } from "../views";
import { asState, assertCanActivate } from "../state-machine";
import { loadTools, type LoadedTool } from "../catalog/read";
import { compileScopeMatrix, deniedTools } from "../policy/compile";
import type { PolicyCache } from "../policy/policy-cache";
import { toAccessPolicyView } from "../access-policy/access-policy-service";
import { buildChecklist, failedIds, type Checklist } from "./checklist";
import { checklistFacts, readSetupInputs } from "./inputs";

/** Lifetime of the throw-away token test-login mints (never returned to anyone). */
const PROBE_TOKEN_LIFETIME_S = 60;

export class SetupService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly registry: ResourceServerRegistry,
    private readonly policies: PolicyCache,
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  private async facts(tx: DbOrTx, rs: ResourceServer) {
    const [inputs] = await readSetupInputs(tx, rs.tenantId, [rs.id]);
    return { tools: inputs!.tools, policy: inputs!.policy, checklist: buildChecklist(checklistFacts(asState(rs.state), inputs!)) };
  }

  async setup(actor: Actor, rsId: string): Promise<Checklist & { rs_id: string }> {
    assertCanRead(actor);
    const rs = await this.servers.findLive(this.db, actor, rsId);
    return { rs_id: rs.id, ...(await this.facts(this.db, rs)).checklist };
  }

  /** Server-side re-check of the current setup: the same items, plus warnings; changes nothing. */
  async validate(actor: Actor, rsId: string) {
    assertCanRead(actor);
    const rs = await this.servers.findLive(this.db, actor, rsId);
    const { tools, checklist } = await this.facts(this.db, rs);
    const manifest = await this.db.sdkManifest.findFirst({ where: { resourceServerId: rs.id, tenantId: rs.tenantId }, select: { valid: true } });
    const stale = tools.filter((t) => t.stale).map((t) => t.name);
    const warnings = [
      ...(stale.length > 0 ? [`${stale.length} tool(s) were not listed by the newest scan (stale): ${stale.join(", ")}`] : []),
      ...(manifest && !manifest.valid ? ["the runtime's last manifest push was invalid; see sdk-manifest-status"] : []),
    ];
    return { rs_id: rs.id, valid: checklist.checklist.every((i) => i.ok), ...checklist, warnings, checked_at: this.clock.now().toISOString() };
  }

  /** Exactly what activation would enforce now: the compiled matrix, who is denied, which clients exist. */
  async activationPreview(actor: Actor, rsId: string) {
    assertCanRead(actor);
    const rs = await this.servers.findLive(this.db, actor, rsId);
    const { tools, policy, checklist } = await this.facts(this.db, rs);
    const clients = await this.db.client.findMany({
      where: { tenantId: actor.tenantId, resourceServerId: rs.id },
      orderBy: { createdAt: "asc" },
      select: { clientId: true, clientName: true, kind: true, registrationMode: true, status: true, allowedScopes: true },
    });
    return {
      rs_id: rs.id,
      ...checklist,
      scope_matrix: compileScopeMatrix(tools),
      denied_tools: deniedTools(tools),
      public_tools: tools.filter((t) => t.isPublic).map((t) => t.name),
      access_policy: toAccessPolicyView(rs.id, policy),
      clients: {
        items: clients.map((c) => ({
          client_id: c.clientId,
          client_name: c.clientName,
          kind: c.kind,
          registration_mode: c.registrationMode,
          status: c.status,
          allowed_scopes: c.allowedScopes as string[],
        })),
        count: clients.length,
      },
    };
  }

  async activate(actor: Actor, rsId: string): Promise<ResourceServerView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      await this.servers.lockForWrite(tx, actor.tenantId, rsId); // the checklist below must not change under us
      const rs = await this.servers.findLive(tx, actor, rsId);
      assertCanActivate(asState(rs.state));
      const { checklist } = await this.facts(tx, rs);
      const failed = failedIds(checklist);
      if (failed.length > 0) {
        throw conflict(`cannot activate: setup is incomplete (${failed.join(", ")}); see GET .../setup for details`, { failed });
      }
      // Guarded on the state so a concurrent activation or failed scan cannot be overwritten.
      const { count } = await tx.resourceServer.updateMany({
        where: { id: rs.id, state: "needs_setup", deletedAt: null },
        data: { state: "ready", setupCompletedAt: now, setupCompletedBy: actor.userId, updatedAt: now },
      });
      if (count === 0) throw conflict("cannot activate: the server's state changed meanwhile; reload and try again");
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.resourceServerActivated, target: { type: "resource_server", id: rs.id } });
    });
    return this.servers.get(actor, rsId);
  }

  /**
   * Setup signal. OAuth: a token for the server's audience is minted and verified with the live
   * keys, and the in-memory registry (what introspection checks Basic credentials against) holds
   * the server's current secret. The probe token is discarded, never returned or logged.
   */
  async testLogin(actor: Actor, rsId: string) {
    assertCanWrite(actor);
    const rs = await this.servers.findLive(this.db, actor, rsId);
    const tools = await loadTools(this.db, actor.tenantId, rs.id);

    const iat = epochSeconds(this.clock.now());
    const probe = await this.jwt.signAccessToken({
      sub: `toolgate:test-login:${rs.id}`,
      aud: rs.resourceUrl,
      iat,
      exp: iat + PROBE_TOKEN_LIFETIME_S,
      jti: this.ids.uuid(),
      client_id: "toolgate-test-login",
      scope: "",
      tenant_id: rs.tenantId,
      sub_type: "client",
    });
    const verified = await this.jwt.verifyAccessToken(probe);
    const audienceOk = verified?.aud === rs.resourceUrl;
    const registered = await this.registry.get(rs.id);
    const secretCurrent = registered?.secretHash === rs.introspectionSecretHash;
    const oauthReady = Boolean(verified) && audienceOk && secretCurrent;

    const compiled = (await this.policies.get(rs.id))?.document;
    return {
      rs_id: rs.id,
      state: rs.state,
      ok: oauthReady,
      oauth: {
        ready: oauthReady,
        audience: rs.resourceUrl,
        token_minted: true,
        token_verified: Boolean(verified) && audienceOk,
        introspection_secret_current: secretCurrent,
        detail: oauthReady
          ? "a token for this server's audience was minted and verified; introspection accepts the current secret"
          : !secretCurrent
            ? "introspection does not know this server's current secret yet (cache not reloaded); retry in a few seconds"
            : "a token for this server's audience could not be verified with the published keys",
      },
      sdk_policy: {
        state: compiled?.state ?? rs.state,
        policy_complete: compiled?.policy_complete ?? false,
        generation: compiled?.generation ?? rs.scanGeneration,
        mapped_tools: compiled ? Object.keys(compiled.scope_matrix).length : 0,
        undismissed_drift_events: compiled?.drift_events.length ?? 0,
        ...(compiled?.reason ? { reason: compiled.reason } : {}),
      },
      tools: toolCounts(tools),
    };
  }
}

function toolCounts(tools: LoadedTool[]) {
  const count = (f: (t: LoadedTool) => boolean) => tools.filter(f).length;
  return {
    total: tools.length,
    by_source: { scan: count((t) => t.source === "scan"), manifest: count((t) => t.source === "manifest"), manual: count((t) => t.source === "manual") },
    mapped: count((t) => t.scopeKeys.length > 0),
    public: count((t) => t.isPublic),
    unmapped: count((t) => !t.isPublic && t.scopeKeys.length === 0),
    stale: count((t) => t.stale),
  };
}
