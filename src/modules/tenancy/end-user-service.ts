// End-user state of workspace members (spec "Tenant end-user state" and its state table): status,
// plan tier, rate-limit override and suspension. Every member is an end user; a member without a
// stored row has the defaults (active). A suspended end user holds no scope; a status change drops
// that member's cached access facts after commit (unit of work,
// docs/decisions/0001-per-entry-caches.md).
import type { Prisma } from "../../generated/sqlite/client";
import type { Db, DbOrTx, Tx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite, assertSameTenant } from "../../shared/actor";
import type { EndUserState } from "../../generated/sqlite/client";
import type { Page } from "../../shared/pagination";
import { END_USER_LIST, type ListEndUsersFilter, type PatchEndUserInput } from "./end-user-schemas";
import { toEndUserView, type EndUserView } from "./views";

interface StateChange {
  status?: string;
  planTier?: string | null;
  rateLimitOverride?: string | null;
  suspendedReason?: string | null;
}

export class EndUserService {
  private readonly suspendedHooks: Array<(tx: Tx, tenantId: string, userId: string) => Promise<unknown>> = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly dbKind: "sqlite" | "postgresql",
  ) {}

  /**
   * One page of the workspace's members as end users, by email (END_USER_LIST). With `q`, the page
   * is read first and then re-checked literally, so it may hold fewer than `limit` items (even none)
   * while `next_cursor` still continues after the last row read.
   */
  async list(actor: Actor, tenantId: string, filter: ListEndUsersFilter): Promise<Page<EndUserView>> {
    assertSameTenant(actor, tenantId);
    assertCanRead(actor);
    const userWhere: Prisma.UserWhereInput[] = [];
    // SQLite's LIKE folds ASCII letters only: a non-ASCII query is matched by the literal re-check below alone.
    const narrowInDb = filter.q && (this.dbKind === "postgresql" || /^[\x00-\x7f]*$/.test(filter.q));
    if (narrowInDb) userWhere.push({ OR: [{ email: this.containsIgnoringCase(filter.q!) }, { username: this.containsIgnoringCase(filter.q!) }] });
    // A member without a row is active, so "active" means "no suspended row".
    if (filter.status === "suspended") userWhere.push({ endUserState: { some: { tenantId, status: "suspended" } } });
    if (filter.status === "active") userWhere.push({ endUserState: { none: { tenantId, status: "suspended" } } });
    if (filter.plan_tier) userWhere.push({ endUserState: { some: { tenantId, planTier: filter.plan_tier } } });
    const rows = await this.db.membership.findMany({
      where: END_USER_LIST.where({ tenantId, user: { AND: userWhere } }, filter.cursor),
      select: { userId: true, user: { select: { id: true, email: true, username: true, endUserState: { where: { tenantId } } } } },
      orderBy: END_USER_LIST.orderBy,
      take: filter.limit + 1,
    });
    // The cursor continues after the last row READ, not the last one kept by the re-check below.
    const page = END_USER_LIST.slice(rows, filter.limit);
    // The database narrows with LIKE, where "%" and "_" are wildcards (Prisma does not escape them on
    // every provider); a LIKE match is a superset of the literal one, so re-check literally here.
    const q = filter.q?.toLowerCase();
    const matching = q ? page.rows.filter(({ user }) => user.email.toLowerCase().includes(q) || user.username.toLowerCase().includes(q)) : page.rows;
    const items = matching.map(({ user }) => toEndUserView(tenantId, user, user.endUserState[0]));
    return { items, count: items.length, next_cursor: page.next_cursor };
  }

  async get(actor: Actor, tenantId: string, userId: string): Promise<EndUserView> {
    assertSameTenant(actor, tenantId);
    assertCanRead(actor);
    const { user, state } = await this.find(this.db, tenantId, userId);
    return toEndUserView(tenantId, user, state);
  }

  /** Upsert: the row is created as `active` when absent, then the patch is applied. */
  async patch(actor: Actor, tenantId: string, userId: string, input: PatchEndUserInput): Promise<EndUserView> {
    return this.change(actor, tenantId, userId, () => ({
      status: input.status,
      planTier: input.plan_tier,
      rateLimitOverride: input.rate_limit_override,
      suspendedReason: input.suspended_reason,
    }));
  }

  /** any -> suspended; the reason (optional) is recorded. Suspending again updates the reason if one is sent. */
  async suspend(actor: Actor, tenantId: string, userId: string, reason: string | undefined): Promise<EndUserView> {
    return this.change(actor, tenantId, userId, () => ({ status: "suspended", suspendedReason: reason }));
  }

  /** suspended -> active; from any other state 409 (spec state table). */
  async reactivate(actor: Actor, tenantId: string, userId: string): Promise<EndUserView> {
    return this.change(actor, tenantId, userId, (current) => {
      if (current?.status !== "suspended") throw conflict("end user is not suspended");
      return { status: "active" };
    });
  }

  private async change(actor: Actor, tenantId: string, userId: string, decide: (current: EndUserState | null) => StateChange): Promise<EndUserView> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    const now = this.clock.now();
    return this.db.$transaction(async (tx) => {
      const { user, state } = await this.find(tx, tenantId, userId);
      const change = decide(state);
      const before = state?.status ?? "active";
      const status = change.status ?? before;
      const leavingSuspension = before === "suspended" && status !== "suspended";
      const data = {
        status,
        planTier: change.planTier,
        rateLimitOverride: change.rateLimitOverride,
        // A reactivation clears the suspension's reason and time, unless the same patch sets a reason.
        suspendedReason: change.suspendedReason !== undefined ? change.suspendedReason : leavingSuspension ? null : undefined,
        suspendedAt: status === "suspended" ? (before === "suspended" ? undefined : now) : null,
        updatedAt: now,
      };
      // An upsert: `state` (read above) tells the audit trail whether this creates or updates the row.
      const row = await tx.endUserState.upsert({
        where: { tenantId_userId: { tenantId, userId } },
        create: { id: this.ids.uuid(), tenantId, userId, createdAt: now, ...data },
        update: data,
      });
      // A suspension ends what the user holds elsewhere (their browser sessions) in this transaction.
      if (status === "suspended" && before !== "suspended") for (const hook of this.suspendedHooks) await hook(tx, tenantId, userId);
      return toEndUserView(tenantId, user, row);
    });
  }

  /** Runs in the transaction that suspends an end user (the sign-in module ends their sessions there). */
  onSuspended(hook: (tx: Tx, tenantId: string, userId: string) => Promise<unknown>): void {
    this.suspendedHooks.push(hook);
  }

  /** The member and their stored state (null when none); 404 when the user is not a member here. */
  private async find(tx: DbOrTx, tenantId: string, userId: string) {
    const m = await tx.membership.findUnique({
      where: { tenantId_userId: { tenantId, userId } },
      select: { user: { select: { id: true, email: true, username: true, endUserState: { where: { tenantId } } } } },
    });
    if (!m) throw notFound("end user");
    return { user: m.user, state: m.user.endUserState[0] ?? null };
  }

  /**
   * Case-insensitive substring match on both databases: PostgreSQL needs `mode: insensitive` (ILIKE);
   * SQLite's LIKE already ignores case (for ASCII letters) and rejects the `mode` argument.
   */
  private containsIgnoringCase(q: string): Prisma.StringFilter {
    return this.dbKind === "postgresql" ? ({ contains: q, mode: "insensitive" } as Prisma.StringFilter) : { contains: q };
  }
}
