// zod building blocks shared by several modules' input schemas.
import { z } from "zod";

/** An array of at most `max` items with no duplicates. */
export const uniqueList = <T extends z.ZodType<string>>(item: T, max: number) =>
  z.array(item).max(max).refine((a) => new Set(a).size === a.length, "must not contain duplicates");
