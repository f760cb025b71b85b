/**
 * The protocol's controls (workers/engine/controls.ts) as production wires them: the engine is
 * handed PRODUCTION_CONTROLS itself, every mechanism on, whatever else a caller sets; a test's
 * control case switches off only the mechanism it names.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PRODUCTION_CONTROLS } from "../../workers/engine/controls";
import { engineDeps, networkTransport } from "../../workers/wiring/wire";
import { ManualClock } from "../helpers/clock";

describe("the engine's controls", () => {
  it("production wiring passes exactly PRODUCTION_CONTROLS, with every mechanism on", () => {
    expect(engineDeps(env, networkTransport).controls).toBe(PRODUCTION_CONTROLS);
    expect(PRODUCTION_CONTROLS).toEqual({
      parentLocks: true,
      ownership: true,
      fencing: true,
      listCaps: true,
      leaseQuota: true,
      recentWrites: true,
    });
    expect(Object.isFrozen(PRODUCTION_CONTROLS)).toBe(true);
  });

  it("overriding anything but the controls leaves them production's", () => {
    const deps = engineDeps(env, networkTransport, {
      clock: new ManualClock(0),
      combining: false,
      sharedTokens: false,
      isolateTokenCache: false,
    });
    expect(deps.controls).toBe(PRODUCTION_CONTROLS);
  });

  it("a control case switches off the mechanism it names, and only that one", () => {
    const { controls } = engineDeps(env, networkTransport, { controls: { leaseQuota: false } });
    expect(controls).toEqual({ ...PRODUCTION_CONTROLS, leaseQuota: false });
    expect(PRODUCTION_CONTROLS.leaseQuota).toBe(true);
  });
});
