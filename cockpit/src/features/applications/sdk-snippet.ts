// The ten lines that put an MCP server behind Toolgate with toolgate/sdk (docs/sdk.md), filled in
// with the registered server. The secret goes into the environment, never into source code.

export function sdkSnippet(o: { issuer: string; id: string; resourceUrl: string }): string {
  return `import express from "express";
import { createToolgateGuard } from "toolgate/sdk";

const guard = createToolgateGuard({
  issuer: ${JSON.stringify(o.issuer)},
  resourceServerId: ${JSON.stringify(o.id)},
  introspectionSecret: process.env.TOOLGATE_RS_SECRET!,
  resource: ${JSON.stringify(o.resourceUrl)},
  createServer: () => buildMyMcpServer(), // your McpServer and its tools
});
const app = express();
app.use(express.json(), guard.middleware);
await guard.start();
app.listen(${JSON.stringify(Number(new URL(o.resourceUrl).port) || 3333)});`;
}

export const secretEnvLine = (secret: string) => `export TOOLGATE_RS_SECRET='${secret}'`;
