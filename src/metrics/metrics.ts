// The Prometheus figures of one app instance (GET /metrics; docs/decisions/0023-metrics-endpoint.md).
//
// One Registry per instance, never prom-client's global one: tests start several apps in one
// process, and two instances must not share or collide on figures.
// Hot paths pay for counters and histograms only, through children bound to their labels up
// front where the label values are known (introspection, tokens per grant); what other parts
// already count (the entry caches' and the change bus's stats) is read when Prometheus scrapes,
// adding no work to requests. Every label takes a bounded set of values (routes are Express
// patterns, never raw URLs; unknown grant types and outcomes fold into "other").
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { EntryCache } from "../shared/entry-cache";
import type { ChangeBus } from "../storage/change-bus";
import type { OAuthOutcomes } from "../modules/oauth";
import type { ScanOutcome } from "../modules/resource-servers";
import type { SignInCounts } from "../modules/tenancy";
import { clusterMetricsReader } from "./cluster-metrics";

/** Grant types counted by name; anything else a client sends is "other" (bounded labels). */
const GRANT_TYPES = ["client_credentials", "authorization_code", "refresh_token"] as const;
/** Token endpoint outcomes: issued, or the OAuth error code (RFC 6749 §5.2) it answered. */
const TOKEN_OUTCOMES = [
  "issued",
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "invalid_target",
  "server_error",
  "temporarily_unavailable",
] as const;

/**
 * Dynamic client registration (RFC 7591) figures, as the registration service and its router
 * already count them (read at scrape time): registrations created, refused for bad metadata
 * (registration or RFC 7592 update), refused by the per-address rate limit or for size; RFC 7592
 * reads, updates and deletions; idle registrations pruned.
 */
export interface RegistrationCounts {
  service: { registered: number; rejected: number; read: number; updated: number; deleted: number; pruned: number };
  http: { rateLimited: number; tooLarge: number };
}

export const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricsSources {
  /** The hot-path entry caches (CacheFactory.built), read at scrape time. */
  caches: readonly EntryCache<unknown>[];
  /** The change bus (invalidations from other instances and their lag), read at scrape time. */
  bus: ChangeBus;
}

/** Sums `stat` over caches sharing a name (a kind can have several holders). */
function perCache(caches: readonly EntryCache<unknown>[], stat: (c: EntryCache<unknown>) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of caches) out.set(c.name, (out.get(c.name) ?? 0) + stat(c));
  return out;
}

/** A counter whose value another part already keeps: copied in at scrape time. */
function scrapedCounter(registry: Registry, name: string, help: string, labelNames: string[], read: () => Iterable<[Record<string, string>, number]>) {
  return new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, value);
    },
  });
}

export class Metrics implements OAuthOutcomes {
  readonly registry = new Registry();
  /** Set in a cluster worker: reads the figures of every worker (cluster-metrics.ts). */
  private readonly clusterReader: (() => Promise<string>) | undefined;
  readonly httpDuration: Histogram<"method" | "route" | "status">;
  private readonly tokens: Counter<"grant_type" | "outcome">;
  private readonly introspections: Counter<"active" | "cache">;
  private readonly scans: Counter<"outcome">;
  private registrationCounts: RegistrationCounts | undefined;
  private signInCounts: SignInCounts | undefined;
  /** [active][cached] children, bound once: the introspection hot path only increments. */
  private readonly introspectionChildren: { inc(): void }[][];

  /**
   * `exposed`: whether anything will ever read these figures (TOOLGATE_METRICS_TOKEN is set). When
   * not, the process metrics (a garbage-collection observer, an event-loop monitor) are not started
   * and app.ts leaves the OAuth outcome counters unwired: unscraped metrics cost nothing per request.
   */
  constructor(sources: MetricsSources, exposed = true) {
    const registers = [this.registry];
    if (exposed) {
      collectDefaultMetrics({ register: this.registry, prefix: "toolgate_" });
      this.clusterReader = clusterMetricsReader(this.registry);
    }
    this.httpDuration = new Histogram({
      name: "toolgate_http_request_duration_seconds",
      help: "HTTP requests by method, route (the Express route pattern) and status; _count is the number of requests",
      labelNames: ["method", "route", "status"],
      buckets: HTTP_DURATION_BUCKETS,
      registers,
    });
    this.tokens = new Counter({
      name: "toolgate_tokens_total",
      help: "Token endpoint answers by grant type and outcome (issued, or the OAuth error code)",
      labelNames: ["grant_type", "outcome"],
      registers,
    });
    this.introspections = new Counter({
      name: "toolgate_introspections_total",
      help: "Introspection answers to authenticated resource servers: active or not, answered from cache (hit) or after loading (miss)",
      labelNames: ["active", "cache"],
      registers,
    });
    this.introspectionChildren = [
      [this.introspections.labels("false", "miss"), this.introspections.labels("false", "hit")],
      [this.introspections.labels("true", "miss"), this.introspections.labels("true", "hit")],
    ];
    this.scans = new Counter({ name: "toolgate_scans_total", help: "MCP server rescans by outcome", labelNames: ["outcome"], registers });
    const fromRegistrations = (label: string, pick: (c: RegistrationCounts) => Record<string, number>) => () => {
      const c = this.registrationCounts;
      return c ? Object.entries(pick(c)).map(([value, n]) => [{ [label]: value }, n] as [Record<string, string>, number]) : [];
    };
    scrapedCounter(
      this.registry,
      "toolgate_registrations_total",
      "Dynamic client registrations (RFC 7591) by outcome: created, rejected (bad metadata), rate_limited, too_large",
      ["outcome"],
      fromRegistrations("outcome", (c) => ({ created: c.service.registered, rejected: c.service.rejected, rate_limited: c.http.rateLimited, too_large: c.http.tooLarge })),
    );
    scrapedCounter(
      this.registry,
      "toolgate_registration_management_total",
      "RFC 7592 operations on registrations (read, updated, deleted) and idle registrations pruned",
      ["operation"],
      fromRegistrations("operation", (c) => ({ read: c.service.read, updated: c.service.updated, deleted: c.service.deleted, pruned: c.service.pruned })),
    );

    const fromSignIns = (pick: (c: SignInCounts) => number) => () => (this.signInCounts ? [[{}, pick(this.signInCounts)] as [Record<string, string>, number]] : []);
    scrapedCounter(this.registry, "toolgate_password_checks_total", "Passwords checked (scrypt) at admin login and end-user sign-in, an unknown email's dummy check included", [], fromSignIns((c) => c.passwordChecks));
    scrapedCounter(this.registry, "toolgate_sign_in_throttled_total", "Sign-in attempts refused by the login throttle before any password check", [], fromSignIns((c) => c.throttled));

    const { caches, bus } = sources;
    const byCache = (stat: (c: EntryCache<unknown>) => number) => () => [...perCache(caches, stat)].map(([cache, v]) => [{ cache }, v] as [Record<string, string>, number]);
    scrapedCounter(this.registry, "toolgate_cache_hits_total", "Hot-path cache lookups answered from memory", ["cache"], byCache((c) => c.stats.hits));
    scrapedCounter(this.registry, "toolgate_cache_misses_total", "Hot-path cache lookups that loaded from the database", ["cache"], byCache((c) => c.stats.misses));
    scrapedCounter(this.registry, "toolgate_cache_evictions_total", "Entries evicted because a cache was full (least recently used first)", ["cache"], byCache((c) => c.stats.evictions));
    scrapedCounter(this.registry, "toolgate_cache_invalidations_total", "Entries (or whole caches) dropped because a write changed them", ["cache"], byCache((c) => c.stats.invalidations));
    new Gauge({
      name: "toolgate_cache_entries",
      help: "Entries held per cache (positive and negative)",
      labelNames: ["cache"],
      registers,
      collect() {
        this.reset();
        for (const [cache, v] of perCache(caches, (c) => c.size)) this.set({ cache }, v);
      },
    });
    scrapedCounter(this.registry, "toolgate_cache_change_sets_received_total", "Change sets received from other instances (PostgreSQL LISTEN/NOTIFY)", [], () => [[{}, bus.stats.received]]);
    scrapedCounter(this.registry, "toolgate_cache_resets_total", "Times every cache was dropped (listener reconnect, outside writer on SQLite)", [], () => [[{}, bus.stats.resets]]);
    scrapedCounter(
      this.registry,
      "toolgate_cache_invalidation_lag_seconds_total",
      "Sum of invalidation lags (publication by the writing instance to application here); divide by toolgate_cache_invalidation_lag_samples_total",
      [],
      () => [[{}, bus.stats.lagMsTotal / 1000]],
    );
    scrapedCounter(this.registry, "toolgate_cache_invalidation_lag_samples_total", "Change sets whose invalidation lag was measured", [], () => [[{}, bus.stats.lagSamples]]);
    new Gauge({
      name: "toolgate_cache_invalidation_lag_seconds",
      help: "Invalidation lag of the last change set received from another instance",
      registers,
      aggregator: "max", // under TOOLGATE_WORKERS: the worst worker's, not a sum of lags
      collect() {
        this.set(bus.stats.lastLagMs / 1000);
      },
    });
  }

  /** grant type -> outcome -> child, bound on first use (bounded: both label sets are fixed). */
  private readonly tokenChildren = new Map<string, Map<string, { inc(): void }>>();

  /** OAuthOutcomes: one token endpoint answer. */
  tokenAnswered(grantType: string | undefined, outcome: string): void {
    const grant = (GRANT_TYPES as readonly string[]).includes(grantType ?? "") ? grantType! : "other";
    const out = (TOKEN_OUTCOMES as readonly string[]).includes(outcome) ? outcome : "other";
    let byOutcome = this.tokenChildren.get(grant);
    if (!byOutcome) this.tokenChildren.set(grant, (byOutcome = new Map()));
    let child = byOutcome.get(out);
    if (!child) byOutcome.set(out, (child = this.tokens.labels({ grant_type: grant, outcome: out })));
    child.inc();
  }

  /** OAuthOutcomes: one introspection answer to an authenticated caller. */
  introspectionAnswered(active: boolean, fromCache: boolean): void {
    this.introspectionChildren[active ? 1 : 0]![fromCache ? 1 : 0]!.inc();
  }

  scanFinished(outcome: ScanOutcome): void {
    this.scans.inc({ outcome });
  }

  /** Where the registration figures are read at scrape time (the service's and its router's counters). */
  readRegistrations(counts: RegistrationCounts): void {
    this.registrationCounts = counts;
  }

  /** Where the password sign-in figures are read at scrape time (TenancyService.stats). */
  readSignIns(counts: SignInCounts): void {
    this.signInCounts = counts;
  }

  /** The exposition (Prometheus text format 0.0.4) and its content type. */
  async expose(): Promise<{ contentType: string; body: string }> {
    // Under TOOLGATE_WORKERS: every worker's figures merged by the primary (cluster-metrics.ts).
    return { contentType: this.registry.contentType, body: this.clusterReader ? await this.clusterReader() : await this.registry.metrics() };
  }
}
