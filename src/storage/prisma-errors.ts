// Translates Prisma's known request errors into domain errors so adapters never see Prisma.
import { DomainError, conflict, notFound } from "../shared/errors";

interface PrismaLikeError {
  code?: string;
  meta?: Record<string, unknown>;
}

export function isUniqueViolation(e: unknown): boolean {
  return (e as PrismaLikeError)?.code === "P2002";
}

export function isRecordMissing(e: unknown): boolean {
  return (e as PrismaLikeError)?.code === "P2025";
}

/** Rethrows Prisma's unique/not-found errors as 409/404 with the given wording; others unchanged. */
export function translatePrismaError(e: unknown, what: string): never {
  if (e instanceof DomainError) throw e;
  if (isUniqueViolation(e)) throw conflict(`${what} already exists`);
  if (isRecordMissing(e)) throw notFound(what);
  throw e;
}
