// GraphQL Code Generator: typed documents for tests and cockpits (`npm run codegen`).
// Input: the committed schema.graphql (printed from the Pothos schema by `npm run schema:print`)
// and the operations in test/graphql/documents/*.graphql. Output: test/graphql/generated/, generated
// (git-ignored) before `npm test` and `npm run typecheck` by their npm pre-scripts (about 2 s).
// A cockpit repo can copy this file and point `documents` and the output at its own sources.
import type { CodegenConfig } from "@graphql-codegen/cli";

export const CODEGEN_OUTPUT = "test/graphql/generated/";

const config: CodegenConfig = {
  schema: "schema.graphql",
  documents: ["test/graphql/documents/**/*.graphql"],
  ignoreNoDocuments: false,
  generates: {
    [CODEGEN_OUTPUT]: {
      preset: "client",
      // Tests read whole results; fragment masking would only add unwrapping calls.
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        // DateTime travels as an ISO 8601 string.
        scalars: { DateTime: "string" },
        skipTypename: true,
      },
    },
  },
};

export default config;
