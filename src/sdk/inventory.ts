// The server's own tool inventory, read the way a client reads it: a fresh McpServer from the
// application's factory, connected to an official SDK client over an in-memory transport, asked for
// tools/list (all pages). What a client would see is exactly what is pinned and pushed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { toolDefinitionHash } from "./definition-hash";
import type { ManifestTool } from "./toolgate-api";

export interface Inventory {
  tools: Tool[];
  /** Live definition hash per tool name. */
  hashes: Map<string, string>;
}

export async function readInventory(createServer: () => McpServer | Promise<McpServer>): Promise<Inventory> {
  const server = await createServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "toolgate-sdk-inventory", version: "1.0.0" });
  await server.connect(serverSide);
  try {
    await client.connect(clientSide);
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return { tools, hashes: new Map(tools.map((t) => [t.name, toolDefinitionHash(t)])) };
  } finally {
    await client.close();
    await server.close();
  }
}

/** The manifest body's tools (spec: PUT .../sdk-manifest). */
export function manifestOf(inventory: Inventory): ManifestTool[] {
  return inventory.tools.map((t) => ({
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: t.inputSchema,
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
  }));
}
