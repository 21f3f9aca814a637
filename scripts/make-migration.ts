// Writes the next SQL migration for both providers, offline, with Prisma's schema engine compiled
// to WASM (the native engine cannot be downloaded everywhere; docs/migrations.md).
//
//   npm run db:migration -- <name>        diff the last migrated schema snapshot -> prisma/schema.prisma
//
// Each provider folder keeps `schema.snapshot.prisma`, the schema as of its newest migration, so the
// diff needs no shadow database. Review the SQL before committing it.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { SqliteAdapterFactory } from "../src/storage/sqlite-adapter";
import { PrismaPg } from "@prisma/adapter-pg";

const root = join(import.meta.dirname, "..");

async function loadEngine() {
  const dir = join(root, "node_modules/@prisma/schema-engine-wasm");
  const bg = await import(join(dir, "schema_engine_bg.js"));
  const bytes = readFileSync(join(dir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  return bg.SchemaEngine as {
    new: (opts: unknown, log: (s: string) => void, adapter: unknown) => Promise<{
      diff(p: unknown): Promise<{ exitCode: number; stdout: string | null }>;
    }>;
  };
}

function providerSchema(kind: "sqlite" | "postgresql"): string {
  const source = readFileSync(join(root, "prisma/schema.prisma"), "utf8");
  return kind === "sqlite" ? source : source.replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"');
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

async function main() {
  const name = (process.argv[2] ?? "").replace(/[^a-z0-9_]/gi, "_").toLowerCase();
  if (!name) throw new Error("usage: npm run db:migration -- <name>");
  const SchemaEngine = await loadEngine();
  const id = stamp();
  for (const kind of ["sqlite", "postgresql"] as const) {
    const dir = join(root, "prisma/migrations", kind);
    mkdirSync(dir, { recursive: true });
    const snapshotPath = join(dir, "schema.snapshot.prisma");
    const target = providerSchema(kind);
    const factory =
      kind === "sqlite"
        ? new SqliteAdapterFactory({ url: ":memory:" })
        : new PrismaPg({ connectionString: process.env.MIGRATION_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" });
    const schemaPath = join(root, "prisma/schema.prisma");
    const engine = await SchemaEngine.new(
      { datamodels: [[schemaPath, target]] },
      () => {},
      bindMigrationAwareSqlAdapterFactory(factory as never),
    );
    const from = existsSync(snapshotPath)
      ? { tag: "schemaDatamodel", files: [{ path: schemaPath, content: readFileSync(snapshotPath, "utf8") }] }
      : { tag: "empty" };
    const result = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", files: [{ path: schemaPath, content: target }] },
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
    const sql = result.stdout ?? "";
    if (result.exitCode !== 2 || /^\s*-- This is an empty migration/.test(sql) || sql.trim() === "") {
      console.log(`${kind}: no changes`);
      continue;
    }
    const out = join(dir, `${id}_${name}`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "migration.sql"), sql);
    writeFileSync(snapshotPath, target);
    console.log(`${kind}: wrote ${out}/migration.sql`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
