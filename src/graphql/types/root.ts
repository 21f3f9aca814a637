// The root types. Entity files add their fields with builder.queryField / builder.mutationField,
// so adding an entity never touches this file.
import { builder } from "../builder";

builder.queryType({ description: "The cockpit graph. Every field is scoped to the workspace of the admin JWT." });
builder.mutationType({ description: "Changes go through the same services as the admin REST API (same checks, events and errors)." });
