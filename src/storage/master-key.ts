// The master key encrypts signing keys at rest and peppers secret hashes. With PostgreSQL it must
// come from TOOLGATE_MASTER_KEY (every instance shares it; config enforces this). In embedded mode
// it is generated once into the data folder with mode 0600 so `npm start` needs no set-up.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeMasterKey } from "../config";

export function loadOrCreateMasterKey(configured: Buffer | undefined, dataDir: string): { key: Buffer; created: boolean; path?: string } {
  if (configured) return { key: configured, created: false };
  const path = join(dataDir, "master.key");
  if (existsSync(path)) {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) chmodSync(path, 0o600); // never leave it readable by others
    const key = decodeMasterKey(readFileSync(path, "utf8").trim());
    if (!key) throw new Error(`${path} does not hold a 32-byte key`);
    return { key, created: false, path };
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, key.toString("base64url") + "\n", { mode: 0o600, flag: "wx" });
  return { key, created: true, path };
}
