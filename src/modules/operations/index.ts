// Operations of the installation itself (not of one workspace): database migrations.
export { MigrationService, MASTER_DATABASE, type MigrationsView } from "./migration-service";
