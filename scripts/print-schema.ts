// npm run schema:print          writes schema.graphql from the Pothos schema
// npm run schema:print -- --check  exits 1 when the committed file is stale (what the test checks)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { SCHEMA_FILE, printCockpitSchema } from "../src/graphql/print";

const printed = printCockpitSchema();
const current = existsSync(SCHEMA_FILE) ? readFileSync(SCHEMA_FILE, "utf8") : "";

if (process.argv.includes("--check")) {
  if (current !== printed) {
    console.error(`${SCHEMA_FILE} is stale: run npm run schema:print and commit it`);
    process.exit(1);
  }
  console.log(`${SCHEMA_FILE} is up to date`);
} else if (current === printed) {
  console.log(`${SCHEMA_FILE} unchanged`);
} else {
  writeFileSync(SCHEMA_FILE, printed);
  console.log(`wrote ${SCHEMA_FILE}`);
}
