// `toolgate evidence verify <dir>`: checks downloaded evidence exports offline (modules/evidence/
// verify.ts): signatures against a key set the operator names (a JWKS URL or a pinned key file,
// never a URL taken from the export), the manifest against its signature, each file's SHA-256 and
// the chain of exports. No database is opened. Exit 1 when anything fails, naming which.
import { readFileSync } from "node:fs";
import type { CliCommand } from "../command";
import { CliExit, usageError } from "../command";

export const evidenceVerifyCommand: CliCommand = {
  name: "evidence verify",
  synopsis: "<dir> (--jwks URL | --key FILE)",
  summary:
    "verify evidence exports downloaded to <dir> (one export, or one per subdirectory): signature, manifest, file hashes, chain;\n" +
    'prints {"ok", "exports", "problems":[{"kind": signature|manifest|file|chain, "export", "message"}]}, exit 1 when not ok.\n' +
    "--jwks: Toolgate's key set URL (e.g. https://toolgate.example/oauth/jwks); --key: a pinned public key file (a JWK or a JWKS)",
  options: { jwks: { type: "string" }, key: { type: "string" } },
  positionals: ["dir"],
  async run(ctx, values) {
    const dir = values.dir as string | undefined;
    if (!dir) usageError("evidence verify: name the directory holding the export(s)");
    const jwks = values.jwks as string | undefined;
    const keyFile = values.key as string | undefined;
    if ((jwks === undefined) === (keyFile === undefined)) usageError("evidence verify: give exactly one of --jwks URL or --key FILE (the key set the signatures must verify with)");
    const { verifyEvidence } = await import("../../modules/evidence");
    const keys = keyFile !== undefined ? readKeyFile(keyFile) : await fetchKeySet(jwks!);
    const report = await verifyEvidence(dir, keys);
    ctx.io.out(JSON.stringify(report, null, 2));
    if (!report.ok) throw new CliExit(1, `evidence verify: ${report.problems.map((p) => p.message).join("; ")}`);
  },
};

function asKeySet(json: unknown, where: string): { keys: Record<string, unknown>[] } {
  const o = json as { keys?: unknown; kty?: unknown };
  if (Array.isArray(o?.keys)) return { keys: o.keys as Record<string, unknown>[] };
  if (typeof o?.kty === "string") return { keys: [o as Record<string, unknown>] };
  usageError(`evidence verify: ${where} is neither a JWK nor a JWKS`);
}

function readKeyFile(path: string) {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    usageError(`evidence verify: cannot read the key file ${path}`);
  }
  try {
    return asKeySet(JSON.parse(text), path);
  } catch (e) {
    if (e instanceof CliExit) throw e;
    usageError(`evidence verify: the key file ${path} is not JSON`);
  }
}

/** The operator's own URL (from the command line, not from the data): fetched with the outbound guard's bounds; private addresses allowed. */
async function fetchKeySet(url: string) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    usageError(`evidence verify: --jwks ${url} is not a URL`);
  }
  const { fetchJsonDocument } = await import("../../shared/outbound/fetch-json");
  const got = await fetchJsonDocument(parsed, { allowPrivateNetworks: true, timeoutMs: 10_000 }, { maxBytes: 256 * 1024, reuse: { defaultSeconds: 0, maxSeconds: 0 }, what: "the key set" });
  if (!got.ok) throw new CliExit(1, `evidence verify: ${got.reason}`);
  return asKeySet(got.json, url);
}
