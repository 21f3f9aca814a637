import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config";

const KEY = "a".repeat(64);

describe("configuration", () => {
  it("has working defaults for a fresh machine (embedded database under ./data)", () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.publicUrl).toBe("http://localhost:8080");
    expect(c.database).toEqual({ kind: "sqlite", url: "file:./data/toolgate.db" });
    expect(c.masterKey).toBeUndefined();
    expect(c.logLevel).toBe("info");
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("derives the public URL from PORT and keeps a configured one exactly", () => {
    expect(loadConfig({ PORT: "9000" }).publicUrl).toBe("http://localhost:9000");
    expect(loadConfig({ TOOLGATE_PUBLIC_URL: "https://auth.example.com/tg" }).publicUrl).toBe("https://auth.example.com/tg");
  });

  it("selects PostgreSQL from DATABASE_URL and then requires the master key", () => {
    expect(() => loadConfig({ DATABASE_URL: "postgresql://u@h/db" })).toThrow(/TOOLGATE_MASTER_KEY: is required with a PostgreSQL/);
    const c = loadConfig({ DATABASE_URL: "postgresql://u@h/db", TOOLGATE_MASTER_KEY: KEY });
    expect(c.database.kind).toBe("postgresql");
    expect(c.masterKey?.length).toBe(32);
  });

  it("names every bad variable in one message", () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        PORT: "eighty",
        TOOLGATE_PUBLIC_URL: "ftp://x",
        DATABASE_URL: "mysql://x",
        TOOLGATE_MASTER_KEY: "short",
        TOOLGATE_LOG_LEVEL: "loud",
        TOOLGATE_ADMIN_EMAIL: "not-an-email",
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const vars = error!.problems.map((p) => p.split(":")[0]);
    for (const v of ["PORT", "TOOLGATE_PUBLIC_URL", "DATABASE_URL", "TOOLGATE_MASTER_KEY", "TOOLGATE_LOG_LEVEL", "TOOLGATE_ADMIN_EMAIL"]) {
      expect(vars).toContain(v);
    }
  });

  it("needs the admin email and password together", () => {
    expect(() => loadConfig({ TOOLGATE_ADMIN_EMAIL: "a@b.co" })).toThrow(/TOOLGATE_ADMIN_PASSWORD/);
    const c = loadConfig({ TOOLGATE_ADMIN_EMAIL: "Admin@B.co", TOOLGATE_ADMIN_PASSWORD: "long enough", TOOLGATE_WORKSPACE_NAME: "Ops" });
    expect(c.bootstrapAdmin).toEqual({ email: "admin@b.co", password: "long enough", workspaceName: "Ops" });
  });

  it("accepts the master key as hex or base64url", () => {
    const b64 = Buffer.alloc(32, 7).toString("base64url");
    expect(loadConfig({ TOOLGATE_MASTER_KEY: b64 }).masterKey).toEqual(Buffer.alloc(32, 7));
    expect(loadConfig({ TOOLGATE_MASTER_KEY: KEY }).masterKey).toEqual(Buffer.from(KEY, "hex"));
  });
});
