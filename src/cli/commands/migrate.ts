import type { CliCommand } from "../command";
import { withDatabase } from "../open-services";

export const migrateCommand: CliCommand = {
  name: "migrate",
  synopsis: "",
  summary: 'apply pending database migrations (also done at every start); prints {"applied": [...]}',
  options: {},
  async run(ctx) {
    await withDatabase(ctx, async ({ booted }) => ctx.io.out(JSON.stringify({ applied: booted.appliedMigrations })));
  },
};
