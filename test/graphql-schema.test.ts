// The committed artefacts of the graph are what the code produces: schema.graphql (printed from the
// Pothos schema) and the typed documents GraphQL Code Generator writes from it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "@graphql-codegen/cli";
import { SCHEMA_FILE, printCockpitSchema } from "../src/graphql/print";
import codegenConfig from "../codegen";

describe("committed GraphQL artefacts", () => {
  it("schema.graphql matches the Pothos schema (run npm run schema:print when this fails)", () => {
    // One assertion on the whole text so the diff shows exactly what drifted.
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(printCockpitSchema());
  });

  it("test/graphql/generated matches codegen's output (run npm run codegen when this fails)", async () => {
    const root = join(import.meta.dirname, "..");
    const outputs = await generate({ ...codegenConfig, cwd: root, silent: true, errorsOnly: true }, false);
    expect(outputs.length).toBeGreaterThan(0);
    for (const out of outputs) {
      expect(readFileSync(join(root, out.filename), "utf8"), out.filename).toBe(out.content);
    }
  });
});
