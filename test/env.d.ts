// Tests run the dev entry (wrangler.dev.toml): its bindings include the provider emulators.
import type { DevEnv } from "../workers/dev/dev-env";

declare global {
  namespace Cloudflare {
    interface Env extends DevEnv {}
  }
}
