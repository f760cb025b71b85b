/** The Action's entry (dist/action.js, built by `npm run build:action`). */
import * as core from "@actions/core";
import { runAction } from "./run-action";

try {
  await runAction();
} catch (err) {
  core.setFailed(err instanceof Error ? err.message : String(err));
}
