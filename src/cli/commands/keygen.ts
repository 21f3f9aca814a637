import { randomBytes } from "node:crypto";
import type { CliCommand } from "../command";

export const keygenCommand: CliCommand = {
  name: "keygen",
  synopsis: "",
  summary:
    "print a new random master key (64 hex characters) for TOOLGATE_MASTER_KEY; it touches no database.\n" +
    "Keep it with the database backups: it encrypts the signing keys. Same as: openssl rand -hex 32",
  options: {},
  async run(ctx) {
    ctx.io.out(randomBytes(32).toString("hex"));
  },
};
