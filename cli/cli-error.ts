/**
 * An error the CLI reports and exits with: 1 run failed or lock held, 2 usage or authentication.
 * 3 is no error: a destroy or rollback of a scope that has no receipt (nothing to do; a typo?).
 */
export type ExitCode = 0 | 1 | 2 | 3;

export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(exitCode: ExitCode, message: string) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
