// The one Pothos SchemaBuilder of the cockpit graph: plugins and shared type parameters only.
// Types live in ./types/<entity>.ts (one file per entity) and are registered by importing them
// from ./schema.ts; nothing else belongs here.
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import type PrismaTypes from "../generated/pothos-types";
import { getDatamodel } from "../generated/pothos-types";
import type { GraphQLContext } from "./context";

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
  };
  // Fields are non-null unless a type file says otherwise: the cockpit should not have to
  // null-check what the database guarantees.
  DefaultFieldNullability: false;
}>({
  // No dataloader plugin: per-request DataLoaders are held in one place, ./loaders.ts.
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    // The request's tenant-scoped reader (src/storage/tenant-scope.ts): every selection the plugin
    // reads, nested lists included, is ANDed with the caller's workspace, and it cannot write.
    // Reading it from the context keeps the schema a module-level singleton.
    client: (ctx) => ctx.reads,
    // Prisma 7 no longer carries the DMMF at run time; the generator writes it next to the types.
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    // A root resolver that forgets to spread `query` silently loses nested selections (and turns
    // them into per-row fallback queries); fail loudly instead of warning into a log nobody reads.
    onUnusedQuery: "error",
  },
});
