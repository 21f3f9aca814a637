// GraphQL Code Generator: typed documents for tests and the cockpit (`npm run codegen`).
// Input: the committed schema.graphql (printed from the Pothos schema by `npm run schema:print`)
// and the operations in test/graphql/documents/*.graphql and cockpit/src/**/*.graphql. Output:
// test/graphql/generated/ and cockpit/src/graphql/generated/, generated (git-ignored) by
// `npm run build` (which `npm install`, `npm test` and `npm run typecheck` run first; about 2 s):
// a schema change that breaks a cockpit document fails the typecheck and the build.
import type { CodegenConfig } from "@graphql-codegen/cli";

export const CODEGEN_OUTPUT = "test/graphql/generated/";
export const COCKPIT_CODEGEN_OUTPUT = "cockpit/src/graphql/generated/";

const typedDocuments = {
  preset: "client",
  // Whole results are read; fragment masking would only add unwrapping calls.
  presetConfig: { fragmentMasking: false },
  config: {
    useTypeImports: true,
    enumsAsTypes: true,
    // DateTime travels as an ISO 8601 string.
    scalars: { DateTime: "string" },
    skipTypename: true,
  },
} as const;

const config: CodegenConfig = {
  schema: "schema.graphql",
  ignoreNoDocuments: false,
  generates: {
    [CODEGEN_OUTPUT]: { documents: ["test/graphql/documents/**/*.graphql"], ...typedDocuments },
    // The cockpit's operations, one .graphql file per feature (docs/cockpit.md).
    // Documents as strings (documentMode "string"): the page sends the text and needs no graphql-js.
    [COCKPIT_CODEGEN_OUTPUT]: { documents: ["cockpit/src/**/*.graphql"], ...typedDocuments, config: { ...typedDocuments.config, documentMode: "string" } },
  },
};

export default config;
