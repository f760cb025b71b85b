// Tests run the dev entry (wrangler.dev.toml): its bindings include the provider emulators.
import type { DevEnv } from "../dev/entry/dev-env";

declare global {
  namespace Cloudflare {
    interface Env extends DevEnv {}
  }
}
