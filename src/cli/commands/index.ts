// Every `toolgate` command, in the order `toolgate help` lists them. A new command is a module in
// this folder exporting a CliCommand, plus one entry here (and one line of help per group below).
import type { CliCommand } from "../command";
import { bootstrapCommand } from "./bootstrap";
import { keygenCommand } from "./keygen";
import { keysListCommand, keysRotateCommand } from "./keys";
import { migrateCommand } from "./migrate";
import { usersResetMfaCommand, usersResetPasswordCommand, usersUnlockCommand } from "./users";
import { auditPruneCommand, auditVerifyCommand } from "./audit";
import { evidenceVerifyCommand } from "./evidence";

export const COMMANDS: readonly CliCommand[] = [
  migrateCommand,
  bootstrapCommand,
  keygenCommand,
  keysRotateCommand,
  keysListCommand,
  usersResetPasswordCommand,
  usersUnlockCommand,
  usersResetMfaCommand,
  auditVerifyCommand,
  auditPruneCommand,
  evidenceVerifyCommand,
];

/** One line about each command group (a group is the first word of two-word commands). */
export const GROUPS: Readonly<Record<string, string>> = {
  keys: "signing keys (ES256: access, admin and ID tokens; RS256: ID tokens)",
  users: "an account's password, failed sign-in counts and second factors (the way back in)",
  audit: "the audit trail: verify its hash chains, apply retention",
  evidence: "signed evidence exports of an application's access: verify them offline",
};
