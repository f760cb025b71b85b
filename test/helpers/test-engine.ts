/**
 * The one way tests build an engine: production's wiring (createEngine: real lock objects, R2,
 * scope state, policy, metering) on the emulator transport, with the test's knobs on top.
 *
 * Defaults, each overridable:
 * - env: the test Worker's bindings with the connections the file registered (testEnv), plus
 *   `bindings` (a connection's secret, a config var such as LEASE_TTL_SECONDS);
 * - fetch: every provider request goes to its host's emulator (dev/entry/dev-env.ts), never the
 *   network; `wrapFetch` sees each one;
 * - clock: the system clock, as production: the lock objects' expiries and alarms take real time,
 *   and a lease renewed on a test clock would not be renewed at all. A test that needs time to pass
 *   in the engine passes a ManualClock or StepClock (./clock.ts);
 * - metering: the engine's own, per run (`timings` and `counts` in each result); `requests`
 *   additionally records every provider request as "METHOD host/path";
 * - provider budgets: off (`sharedBudgets: false`), as the emulators' are: a test of something
 *   else would wait out Auth0's 2 calls a second, on a test clock nobody advances for it. The
 *   budget tests turn it on (docs/design.md, "Write budgets").
 */
import { env } from "cloudflare:workers";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { Env } from "../../shared/env";
import type { Engine } from "../../workers/engine/engine";
import { createEngine, type EngineOverrides } from "../../workers/wiring/wire";
import { testEnv } from "./connections";

export interface TestEngineOptions extends EngineOverrides {
  /** Bindings added to (or replacing) the test Worker's: secrets, config vars. */
  bindings?: object;
  /** Receives every provider request the engine sends, as "METHOD host/path", in order. */
  requests?: string[];
}

export function testEngine(options: TestEngineOptions = {}): Engine {
  const { bindings = {}, requests, ...overrides } = options;
  const wrapFetch = requests ? recording(requests, overrides.wrapFetch) : overrides.wrapFetch;
  return createEngine(testEnv({ ...env, ...bindings } as Env), emulatorTransport, {
    sharedBudgets: false,
    ...overrides,
    ...(wrapFetch ? { wrapFetch } : {}),
  });
}

/** The test's own wrapper (if any) sees the request first, then the recorder, then the emulators. */
function recording(requests: string[], outer: EngineOverrides["wrapFetch"]) {
  return (inner: typeof fetch): typeof fetch => {
    const recorded: typeof fetch = (input, init) => {
      const req = new Request(input, init);
      const url = new URL(req.url);
      requests.push(`${req.method} ${url.host}${url.pathname}`);
      return inner(input, init);
    };
    return outer ? outer(recorded) : recorded;
  };
}
