export { createPrismaClient, sqliteFilePath, observeQueries, type Db, type Tx, type DbOrTx, type DatabaseTarget, type QueryObservation } from "./prisma";
export { migrate, loadMigrations, MIGRATIONS_ROOT } from "./migrate";
export { CacheVersions, type CacheName } from "./cache-versions";
export { isUniqueViolation, isRecordMissing, translatePrismaError } from "./prisma-errors";
