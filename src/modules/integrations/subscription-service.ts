// Webhook subscriptions of a workspace (/svc/exsvc/webhooks). The signing secret is generated here,
// shown once in the creation answer, and stored encrypted (it must be used to sign, so it cannot be
// hashed; docs/decisions/0039-webhooks-outbox.md). The endpoint URL passes the outbound guard when
// it is saved (a clear 400) and again on every delivery (DNS may change).
import type { Db, DbOrTx } from "../../storage";
import { FANOUT_CONSUMER } from "./fanout";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { decryptAtRest, encryptAtRest } from "../../shared/crypto";
import { badRequest, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { Page, PageRequest } from "../../shared/pagination";
import { OutboundRefused, resolveAllowed } from "../../shared/outbound/resolve";
import { strictUrl } from "../../shared/urls";
import { WEBHOOK_LIST, type CreateWebhookInput, type UpdateWebhookInput } from "./schemas";
import { newWebhookSecret } from "./signing";
import { toWebhookView, type CreatedWebhookView, type WebhookView } from "./views";

export const ALLOW_PRIVATE_VARIABLE = "TOOLGATE_WEBHOOK_ALLOW_PRIVATE";

export interface EndpointPolicy {
  allowPrivateNetworks: boolean;
}

export class SubscriptionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** Encrypts webhook secrets at rest (derived from the master key). */
    private readonly secretKey: Buffer,
    private readonly endpoints: EndpointPolicy,
  ) {}

  async create(actor: Actor, input: CreateWebhookInput): Promise<CreatedWebhookView> {
    assertCanWrite(actor);
    const url = await this.checkedUrl(input.url);
    const id = this.ids.uuid();
    const secret = newWebhookSecret();
    const now = this.clock.now();
    const row = await this.db.$transaction(async (tx) => {
      await this.startFanoutAtHead(tx, actor.tenantId);
      return tx.webhookSubscription.create({
        data: {
          id,
          tenantId: actor.tenantId,
          url,
          description: input.description ?? null,
          eventTypes: input.event_types,
          secretEnc: encryptAtRest(this.secretKey, secret, id),
          status: "active",
          createdAt: now,
          updatedAt: now,
          createdBy: actor.userId,
        },
      });
    });
    return { ...toWebhookView(row), secret };
  }

  async list(actor: Actor, page: PageRequest): Promise<Page<WebhookView>> {
    assertCanRead(actor);
    const rows = await this.db.webhookSubscription.findMany({
      where: WEBHOOK_LIST.where({ tenantId: actor.tenantId }, page.cursor),
      orderBy: WEBHOOK_LIST.orderBy,
      take: page.limit + 1,
    });
    return WEBHOOK_LIST.page(rows, page.limit, toWebhookView);
  }

  async get(actor: Actor, id: string): Promise<WebhookView> {
    assertCanRead(actor);
    return toWebhookView(await this.find(this.db, actor, id));
  }

  /** Changes the URL, types, description or status; re-enabling closes the circuit. */
  async update(actor: Actor, id: string, input: UpdateWebhookInput): Promise<WebhookView> {
    assertCanWrite(actor);
    const url = input.url === undefined ? undefined : await this.checkedUrl(input.url);
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.find(tx, actor, id);
      if (input.status === "active" && current.status !== "active") await this.startFanoutAtHead(tx, actor.tenantId);
      return tx.webhookSubscription.update({
        where: { id },
        data: {
          url,
          eventTypes: input.event_types,
          description: input.description,
          status: input.status,
          ...(input.status === "active" ? { consecutiveFailures: 0, circuitOpenUntil: null } : {}),
          updatedAt: this.clock.now(),
        },
      });
    });
    return toWebhookView(row);
  }

  /** Deletes the subscription and its deliveries (pending ones are not sent). */
  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.find(tx, actor, id);
      await tx.webhookSubscription.delete({ where: { id } });
    });
  }

  /**
   * The fan-out leaves a workspace without active webhooks alone (its cursor stays behind). When the
   * first one becomes active, the cursor moves to the chain's head, so the fan-out does not read
   * the workspace's whole history to find that none of it is for the new endpoint (it only gets
   * what happens after its creation).
   */
  private async startFanoutAtHead(tx: DbOrTx, tenantId: string): Promise<void> {
    if ((await tx.webhookSubscription.count({ where: { tenantId, status: "active" } })) > 0) return;
    const head = (await tx.auditEvent.findFirst({ where: { chain: tenantId }, orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;
    const key = { consumer_chain: { consumer: FANOUT_CONSUMER, chain: tenantId } };
    const cursor = await tx.eventCursor.findUnique({ where: key });
    const updatedAt = this.clock.now();
    if (!cursor) await tx.eventCursor.create({ data: { consumer: FANOUT_CONSUMER, chain: tenantId, seq: head, updatedAt } });
    else if (cursor.seq < head) await tx.eventCursor.update({ where: key, data: { seq: head, updatedAt } });
  }

  /** The secret of a subscription, for signing (the dispatcher; never an answer). */
  secretOf(row: { id: string; secretEnc: string }): string {
    return decryptAtRest(this.secretKey, row.secretEnc, row.id);
  }

  async find(tx: Pick<Db, "webhookSubscription">, actor: Actor, id: string) {
    const w = await tx.webhookSubscription.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!w) throw notFound("webhook");
    return w;
  }

  /** https (http only where private networks are allowed, for local receivers), through the outbound guard. */
  private async checkedUrl(input: string): Promise<string> {
    const schemes = this.endpoints.allowPrivateNetworks ? ["https:", "http:"] : ["https:"];
    const parsed = strictUrl(input, { schemes, allowQuery: true });
    if (!parsed.ok) throw badRequest(`url: ${parsed.reason}`);
    try {
      await resolveAllowed(parsed.url, this.endpoints.allowPrivateNetworks, ALLOW_PRIVATE_VARIABLE);
    } catch (e) {
      if (e instanceof OutboundRefused) throw badRequest(`url: ${e.reason}`);
      throw e;
    }
    return parsed.href;
  }
}
