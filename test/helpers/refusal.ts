/** The SponsonError a synchronous call refuses with; anything else, or no refusal, fails the test. */
import { SponsonError } from "../../shared/errors";

export function refusal(fn: () => unknown): SponsonError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}
