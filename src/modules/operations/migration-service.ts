// The spec's gateway module `/svc/migration/` ("database migration management", e.g.
// `POST /svc/migration/migrations/master/run`): the state of the shipped migrations on the running
// database, and applying the pending ones with the same runner as start-up and `toolgate migrate`
// (src/storage/migrate.ts). Owner only (docs/decisions/0028-migration-api.md): a migration changes
// the whole installation's schema, every workspace's alike.
import { conflict } from "../../shared/errors";
import { type Actor, assertOwner } from "../../shared/actor";
import { migrate, migrationStates, MigrationLockedError, MIGRATIONS_ROOT, type Db, type MigrationState } from "../../storage";

/** The installation's one database: the spec's path names it `master`. */
export const MASTER_DATABASE = "master";

export interface MigrationsView {
  database: typeof MASTER_DATABASE;
  provider: "sqlite" | "postgresql";
  items: MigrationState[];
  count: number;
  next_cursor: null;
  pending: number;
}

export class MigrationService {
  /** A run of this process (the API's runs queue nowhere: a second one is told to ask again). */
  private running: Promise<string[]> | undefined;

  constructor(
    private readonly db: Db,
    private readonly provider: "sqlite" | "postgresql",
    private readonly root: string = MIGRATIONS_ROOT,
  ) {}

  async list(actor: Actor): Promise<MigrationsView> {
    assertOwner(actor);
    return this.view(await migrationStates(this.db, this.provider, this.root));
  }

  /**
   * Applies the pending migrations now. 409 while another run holds the lock: one of this
   * process, or (PostgreSQL) any instance's, start-up and `toolgate migrate` included.
   */
  async run(actor: Actor): Promise<MigrationsView & { applied: string[] }> {
    assertOwner(actor);
    if (this.running) throw conflict("migrations are being applied by another request to this server now; ask again when it has finished");
    this.running = migrate(this.db, this.provider, this.root, { wait: false });
    try {
      const applied = await this.running;
      return { ...this.view(await migrationStates(this.db, this.provider, this.root)), applied };
    } catch (e) {
      if (e instanceof MigrationLockedError) throw conflict(e.message);
      throw e;
    } finally {
      this.running = undefined;
    }
  }

  private view(items: MigrationState[]): MigrationsView {
    return { database: MASTER_DATABASE, provider: this.provider, items, count: items.length, next_cursor: null, pending: items.filter((m) => m.state === "pending").length };
  }
}
