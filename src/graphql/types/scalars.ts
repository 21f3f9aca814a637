// Custom scalars shared by every type file.
import { GraphQLError } from "graphql";
import { builder } from "../builder";

// Timestamps travel as ISO 8601 strings in UTC, as in the REST views.
builder.scalarType("DateTime", {
  description: "An ISO 8601 timestamp in UTC, e.g. 2026-01-01T00:00:00.000Z",
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const d = typeof value === "string" ? new Date(value) : null;
    if (!d || Number.isNaN(d.getTime())) throw new GraphQLError("DateTime must be an ISO 8601 string", { extensions: { code: "BAD_USER_INPUT" } });
    return d;
  },
});
