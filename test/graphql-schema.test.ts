// The committed schema.graphql is what the code produces (printed from the Pothos schema). The typed
// documents GraphQL Code Generator writes from it are generated before tests (npm pretest), not committed.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, printCockpitSchema } from "../src/graphql/print";

describe("committed GraphQL artefacts", () => {
  it("schema.graphql matches the Pothos schema (run npm run schema:print when this fails)", () => {
    // One assertion on the whole text so the diff shows exactly what drifted.
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(printCockpitSchema());
  });
});
