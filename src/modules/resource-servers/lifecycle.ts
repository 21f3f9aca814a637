// Builds the lifecycle services of the resource-servers module around the registration service
// the composition root already has, so src/app.ts adds one field and two routers.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import type { Logger } from "../../shared/logger";
import type { JwtService } from "../tokens";
import type { ResourceServerRegistry } from "./registry";
import type { ResourceServerService } from "./resource-server-service";
import { DriftRecorder } from "./drift/record";
import { DriftService } from "./drift/drift-service";
import { CatalogService } from "./catalog/catalog-service";
import { AccessPolicyService } from "./access-policy/access-policy-service";
import { PolicyCache } from "./policy/policy-cache";
import { RuntimeService } from "./policy/runtime-service";
import { SetupService } from "./setup/setup-service";
import { ScanService, type ScanLimits, type ScanOutcome } from "./scan/scan-service";
import { scanMcpServer, type Scanner } from "./scan/mcp-scanner";

export interface LifecycleDeps {
  db: Db;
  caches: CacheFactory;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  jwt: JwtService;
  registry: ResourceServerRegistry;
  servers: ResourceServerService;
  scan: ScanLimits;
  /** Told how each rescan ended (the metrics); none when omitted. */
  onScanOutcome?: (outcome: ScanOutcome) => void;
  /** Replaceable for tests of the service around the scanner; defaults to the real MCP client. */
  scanner?: Scanner;
}

export interface ResourceServerLifecycle {
  scans: ScanService;
  catalog: CatalogService;
  setup: SetupService;
  accessPolicy: AccessPolicyService;
  drift: DriftService;
  runtime: RuntimeService;
  policies: PolicyCache;
}

export async function createLifecycle(d: LifecycleDeps): Promise<ResourceServerLifecycle> {
  const recorder = new DriftRecorder(d.ids);
  const policies = new PolicyCache(d.db, d.caches);
  const scans = new ScanService(d.db, d.servers, d.clock, d.ids, d.logger, d.scan, d.scanner ?? scanMcpServer, recorder, d.onScanOutcome);

  // secret_rotated is written by the rotation's own transaction, through the hook it offers.
  d.servers.onSecretRotated(async (tx, actor, server, rotatedAt) => {
    await recorder.record(tx, { server, actorId: actor.userId, at: rotatedAt }, "secret_rotated", [{ rotated_by: actor.userId, rotated_at: rotatedAt.toISOString() }]);
  });

  const released = await scans.releaseAbandonedScans();
  if (released > 0) d.logger.warn({ released }, "released scans abandoned by a stopped process");

  return {
    scans,
    catalog: new CatalogService(d.db, d.servers, recorder, d.clock, d.ids),
    setup: new SetupService(d.db, d.servers, d.registry, policies, d.jwt, d.clock, d.ids),
    accessPolicy: new AccessPolicyService(d.db, d.servers, recorder, d.clock),
    drift: new DriftService(d.db, d.servers, d.clock),
    runtime: new RuntimeService(d.db, d.servers, policies, recorder, d.clock, d.ids),
    policies,
  };
}
