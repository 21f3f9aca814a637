// The committed schema.graphql is this text: the Pothos schema, sorted so that moving a field
// between files never shows as a change. scripts/print-schema.ts writes it; a test compares.
import { fileURLToPath } from "node:url";
import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "./schema";

export const SCHEMA_FILE = fileURLToPath(new URL("../../schema.graphql", import.meta.url));

const HEADER = "# Printed from the Pothos schema (src/graphql) by `npm run schema:print`. Do not edit by hand.\n\n";

export function printCockpitSchema(): string {
  return HEADER + printSchema(lexicographicSortSchema(schema)) + "\n";
}
