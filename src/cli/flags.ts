// Validation of one command-line value, with the error naming the flag (`--password: ...`).
import type { z } from "zod";
import { usageError } from "./command";

export function checkFlag<T>(command: string, flag: string, schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) usageError(`${command}: ${flag}: ${r.error.issues.map((i) => i.message).join("; ")}`);
  return r.data;
}
