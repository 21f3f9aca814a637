import type { ApplicationQuery } from "../../graphql/generated/graphql";

/** The application as its screen reads it (ApplicationDocument). */
export type App = NonNullable<ApplicationQuery["resourceServer"]>;
export type AppTool = App["tools"][number];
