/** `token`: the bearer the other commands would send, on stdout only (for piping). */
import type { ExitCode } from "../cli-error";
import { credentials, type Invocation } from "../context";

export async function tokenCommand(inv: Invocation): Promise<ExitCode> {
  const { token } = await credentials(inv);
  inv.io.stdout.write(`${token}\n`);
  return 0;
}
