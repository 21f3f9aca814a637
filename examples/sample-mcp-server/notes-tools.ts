// The sample MCP server's tools: a tiny in-memory notes app. Five tools so the walk-through has
// something to map: two that read, two that write, one harmless enough to make public.
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export interface NoteStore {
  notes: Map<string, string>;
}

/** The tool inventory, also pushed to Toolgate as the runtime's manifest. */
export const NOTE_TOOLS = [
  { name: "list_notes", title: "List notes", description: "Lists the titles of every note" },
  { name: "read_note", title: "Read a note", description: "Returns the text of one note" },
  { name: "create_note", title: "Create a note", description: "Creates or replaces a note" },
  { name: "delete_note", title: "Delete a note", description: "Deletes a note" },
  { name: "server_time", title: "Server time", description: "Returns the server's clock (harmless)" },
] as const;

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const meta = (name: (typeof NOTE_TOOLS)[number]["name"]) => {
  const t = NOTE_TOOLS.find((x) => x.name === name)!;
  return { title: t.title, description: t.description };
};

export function registerNoteTools(server: McpServer, store: NoteStore): void {
  server.registerTool("list_notes", { ...meta("list_notes") }, async () => text([...store.notes.keys()].join("\n") || "(no notes)"));
  server.registerTool("read_note", { ...meta("read_note"), inputSchema: { title: z.string() } }, async ({ title }) =>
    text(store.notes.get(title) ?? `no note called ${title}`),
  );
  server.registerTool("create_note", { ...meta("create_note"), inputSchema: { title: z.string(), body: z.string() } }, async ({ title, body }) => {
    store.notes.set(title, body);
    return text(`saved ${title}`);
  });
  server.registerTool("delete_note", { ...meta("delete_note"), inputSchema: { title: z.string() } }, async ({ title }) =>
    text(store.notes.delete(title) ? `deleted ${title}` : `no note called ${title}`),
  );
  server.registerTool("server_time", { ...meta("server_time") }, async () => text(new Date().toISOString()));
}

/** The notes server: a fresh McpServer over one shared store (the SDK builds one per request). */
export function buildNotesServer(store: NoteStore): McpServer {
  const server = new McpServer({ name: "toolgate-sample-notes", version: "1.0.0" });
  registerNoteTools(server, store);
  return server;
}
