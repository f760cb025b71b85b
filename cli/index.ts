/** The bundle's entry: run the CLI on this process's argv and streams, exit with its code. */
import { main } from "./main";

const code = await main(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
process.exitCode = code;
