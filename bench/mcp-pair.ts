// Child process of the sdk-overhead scenario: the sample MCP server twice in one process, once open
// and once behind toolgate/sdk, so both compete for the same core alike and neither shares an event
// loop with the load generator. Prints one JSON line {open, guarded} when both listen.
import { startSampleServer } from "../examples/sample-mcp-server/server";

const env = process.env;
const open = await startSampleServer({ port: Number(env.OPEN_PORT ?? 0) });
const guarded = await startSampleServer({
  port: Number(env.GUARDED_PORT),
  toolgate: { issuer: env.TOOLGATE_URL!, resourceServerId: env.TOOLGATE_RS_ID!, introspectionSecret: env.TOOLGATE_RS_SECRET! },
});
console.log(JSON.stringify({ open: open.url, guarded: guarded.url }));
process.on("SIGTERM", () => void Promise.all([open.close(), guarded.close()]).then(() => process.exit(0)));
