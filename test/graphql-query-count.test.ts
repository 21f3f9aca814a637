// N+1 guard: the nested list query costs the same number of SQL statements for 1 server with 1
// client as for 5 servers with 3 clients each (plugin-prisma folds `clients` into the list query;
// clientCounts is one batched DataLoader query).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { gql } from "./graphql/client";
import { PreRegisterClientDocument, RegisterResourceServerDocument, ResourceServersDocument } from "./graphql/generated/graphql";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

async function addServer(n: number, clients: number): Promise<void> {
  const r = await gql(h, RegisterResourceServerDocument, {
    input: { name: `Server ${n}`, publicBaseUrl: `https://s${n}.example.test`, protectedBasePath: "/mcp", scopesSupported: ["a:read"] },
  });
  expect(r.errors).toBeUndefined();
  for (let c = 0; c < clients; c++) {
    const created = await gql(h, PreRegisterClientDocument, {
      resourceServerId: r.data!.registerResourceServer.resourceServer.id,
      input: { clientName: `client ${n}.${c}`, redirectUris: [], allowedScopes: ["a:read"] },
    });
    expect(created.errors).toBeUndefined();
  }
}

/** SQL statements run while answering the nested list query, and the answer. */
async function countNestedList() {
  statements.length = 0;
  const r = await gql(h, ResourceServersDocument, {});
  expect(r.errors).toBeUndefined();
  return { count: statements.length, sql: [...statements], servers: r.data!.resourceServers };
}

describe("resourceServers { clients } query count", () => {
  it("does not grow with the number of servers and clients", async () => {
    await addServer(0, 1);
    const small = await countNestedList();
    expect(small.servers).toHaveLength(1);
    expect(small.servers[0]!.clients).toHaveLength(1);
    // The counter is live (otherwise 0 === 0 would prove nothing) and sees the clients read.
    expect(small.sql.some((s) => /FROM\s+[`"]?(?:\w+[`"]?\.[`"]?)?Client[`"]?\s/i.test(s))).toBe(true);

    for (let n = 1; n <= 4; n++) await addServer(n, 3);
    const large = await countNestedList();
    expect(large.servers).toHaveLength(5);
    expect(large.servers.flatMap((s) => s.clients)).toHaveLength(13);
    expect(large.servers.map((s) => s.clientCounts.total)).toEqual([1, 3, 3, 3, 3]);

    expect(large.count, `statements for 5 servers:\n${large.sql.join("\n")}\n\nfor 1 server:\n${small.sql.join("\n")}`).toBe(small.count);
    // Actor lookup, the service's list, the selection read, its clients, the client counts (two
    // batched groupBys: pre-registered clients and connections).
    expect(small.count).toBeLessThanOrEqual(6);
  });
});
