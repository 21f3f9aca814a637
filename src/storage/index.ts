export { createPrismaClient, changesOf, sqliteFilePath, observeQueries, type Db, type Tx, type DbOrTx, type DatabaseTarget, type QueryObservation } from "./prisma";
export { migrate, migrationStates, loadMigrations, MigrationLockedError, MIGRATIONS_ROOT, PG_ADVISORY_LOCK_KEY, type MigrationState } from "./migrate";
export { ChangeBus, ChangeSet, type ChangeKind, type ChangeSubscriber } from "./change-bus";
export { PgChangeChannel } from "./pg-notifications";
export { SqliteChangeWatch, takeServerLock, ServerLockError } from "./sqlite-watch";
export { isUniqueViolation, isRecordMissing, translatePrismaError } from "./prisma-errors";
export { tenantScopedReader, TENANT_COLUMNS, READ_OPERATIONS, type TenantReader } from "./tenant-scope";
