/**
 * `sponson`: the command line for CI jobs and people (docs/cli.md). Exit codes: 0 success;
 * 1 run failed, lock held or another service-side failure; 2 usage or authentication error;
 * 3 a destroy or rollback of a scope that has no receipt.
 */
import { didYouMean } from "../shared/did-you-mean";
import type { ErrorCode } from "../shared/errors";
import { CliError, type ExitCode } from "./cli-error";
import { ApiError, type ApiErrorCode } from "./client";
import { adoptCommand } from "./commands/adopt";
import { configCommand } from "./commands/check";
import { holdCommand, unholdCommand } from "./commands/hold";
import { planCommand } from "./commands/plan-check";
import { ledgerCommand, locksCommand } from "./commands/read";
import { runCommand } from "./commands/run";
import { tokenCommand } from "./commands/token";
import { unlockCommand } from "./commands/unlock";
import { COMMAND_NAMES, type CommandName, commandHelp, mainHelp } from "./commands-spec";
import { type Invocation, type Io, parseCommand } from "./context";

declare const SPONSON_VERSION: string;
const VERSION = typeof SPONSON_VERSION === "string" ? SPONSON_VERSION : "dev";

/** What the caller has to fix (2) versus what failed or is busy on the service's side (1). */
const USAGE_CODES: ReadonlySet<ApiErrorCode> = new Set<ErrorCode>([
  "VALIDATION",
  "EMPTY_PLAN",
  "PAYLOAD_TOO_LARGE",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "CONNECTION_NOT_BOUND",
]);

export function exitCodeOf(err: ApiError): ExitCode {
  return USAGE_CODES.has(err.code) ? 2 : 1;
}

const HANDLERS: Record<CommandName, (inv: Invocation) => Promise<ExitCode>> = {
  apply: (inv) => runCommand(inv, "apply"),
  preview: (inv) => runCommand(inv, "preview"),
  destroy: (inv) => runCommand(inv, "destroy"),
  rollback: (inv) => runCommand(inv, "rollback"),
  ledger: ledgerCommand,
  locks: locksCommand,
  unlock: unlockCommand,
  hold: holdCommand,
  unhold: unholdCommand,
  token: tokenCommand,
  config: configCommand,
  plan: planCommand,
  adopt: adoptCommand,
};

export async function main(argv: string[], io: Omit<Io, "version">): Promise<ExitCode> {
  const full: Io = { ...io, version: VERSION };
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      const topic = first === "help" ? rest[0] : undefined;
      if (topic && (COMMAND_NAMES as string[]).includes(topic)) {
        io.stdout.write(commandHelp(topic as CommandName));
      } else {
        (first === undefined ? io.stderr : io.stdout).write(mainHelp(VERSION));
      }
      return first === undefined ? 2 : 0;
    }
    if (first === "--version" || first === "-v") {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (!(COMMAND_NAMES as string[]).includes(first)) {
      throw new CliError(
        2,
        `unknown command "${first}".${didYouMean(first, COMMAND_NAMES)} Commands: ${COMMAND_NAMES.join(", ")}`,
      );
    }
    const command = first as CommandName;
    const inv = parseCommand(command, rest, full);
    if (inv.flags.help) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await HANDLERS[command](inv);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr.write(`sponson: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof ApiError) {
      const retry = err.retriable ? " (retriable)" : "";
      io.stderr.write(`sponson: ${err.code}: ${err.message}${retry}\n`);
      return exitCodeOf(err);
    }
    io.stderr.write(
      `sponson: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return 1;
  }
}
