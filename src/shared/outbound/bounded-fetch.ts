// A fetch for the scanner that enforces the scan's limits on every request the MCP SDK makes:
// one shared deadline (an AbortSignal merged into each request) and one shared byte budget
// across every response body, counted as the bytes stream in. The MCP server is outside our
// control; without these a slow or endless answer would hold a request thread and memory.
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

export class ByteBudget {
  used = 0;
  exceeded = false;
  constructor(readonly max: number) {}

  /** Counts `n` more bytes; false (and `exceeded`) once the total passes the maximum. */
  take(n: number): boolean {
    this.used += n;
    if (this.used > this.max) this.exceeded = true;
    return !this.exceeded;
  }
}

export class BudgetExceededError extends Error {
  constructor(max: number) {
    super(`upstream sent more than ${max} bytes`);
    this.name = "BudgetExceededError";
  }
}

export function boundedFetch(budget: ByteBudget, deadline: AbortSignal, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const res = await base(url, { ...init, signal });
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > 0 && !budget.take(declared)) {
      await res.body?.cancel().catch(() => undefined);
      throw new BudgetExceededError(budget.max);
    }
    if (!res.body) return res;
    // When the length was declared it is already counted; otherwise count the chunks as they come.
    const counting = !(Number.isFinite(declared) && declared > 0);
    const limited = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (counting && !budget.take(chunk.byteLength)) {
            controller.error(new BudgetExceededError(budget.max));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
