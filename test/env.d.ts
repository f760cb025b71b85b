import type { Env as SponsonEnv } from "../shared/env";

declare global {
  namespace Cloudflare {
    interface Env extends SponsonEnv {}
  }
}
