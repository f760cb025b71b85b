/**
 * One object per emulated provider host. Dispatches to the provider's emulator module and applies
 * the test knobs (latency, read barrier, injected failures, lost answers, late writes, the
 * provider's budget) the same way for every provider.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { EmulatedBucket } from "./emulators/budget";
import { type EmulatorState, type ProviderEmulatorModule, withProviderHeaders } from "./emulators/emulator";
import {
  EMULATOR_NOW_HEADER,
  type EmulatorKnobs,
  type EmulatorKnobsInput,
  emulatorKnobsSchema,
  LOST_ANSWER_HEADER,
} from "./emulators/knobs";
import { emulatorFor } from "./emulators/registry";

export class ProviderEmulator extends DurableObject<Env> {
  #knobs: EmulatorKnobs = emulatorKnobsSchema.parse({});
  #arrived = 0;
  #held: Array<() => void> = [];
  #heldWrites: Array<() => void> = [];
  /** Writes answered as lost and not applied yet (knob `lateWrites`), in arrival order. */
  #lateWrites: Array<() => Promise<void>> = [];
  #requests = 0;
  #writes = 0;
  /** Knob `budget`: one bucket per what the provider counts per, and the calls it refused. */
  #buckets = new Map<string, EmulatedBucket>();
  #throttled = 0;

  override async fetch(request: Request): Promise<Response> {
    return withProviderHeaders(await this.#answer(request), Date.now());
  }

  async #answer(request: Request): Promise<Response> {
    const host = new URL(request.url).host;
    const module = emulatorFor(host);
    if (!module) return new Response(`no emulator for host ${host}`, { status: 502 });
    this.#requests += 1;
    if (this.#knobs.latencyMs > 0) await new Promise((r) => setTimeout(r, this.#knobs.latencyMs));
    const isRead = module.isRead(request);
    const isWrite = module.isWrite(request);
    const budget = this.#budget(request, module);
    if (budget?.refusal) return budget.refusal;
    if (isWrite && this.#knobs.lateWrites > 0) return this.#late(request, module);
    const failure = this.#knobs.failures.find(
      (f) => f.on === "any" || (f.on === "read" && isRead) || (f.on === "write" && isWrite),
    );
    if (failure) {
      failure.count -= 1;
      if (failure.count === 0) this.#knobs.failures.splice(this.#knobs.failures.indexOf(failure), 1);
      return module.injectedError(failure.status, Date.now());
    }
    if (isRead && this.#knobs.readBarrier > 0) await this.#barrier();
    if (isWrite && this.#knobs.holdWrites > 0) {
      this.#knobs.holdWrites -= 1;
      // Applied against the state as it is when released, as a late request would be.
      await new Promise<void>((resolve) => this.#heldWrites.push(resolve));
    }
    if (isWrite) this.#writes += 1;
    const answer = withHeaders(await module.handle(request, this.#state(), this.#outbound), budget?.headers);
    if (isWrite && answer.ok && this.#knobs.loseWriteAnswers > 0) {
      this.#knobs.loseWriteAnswers -= 1;
      // Applied; the transport turns this mark into the network error a broken connection gives.
      await answer.body?.cancel();
      return new Response(null, { status: 204, headers: { [LOST_ANSWER_HEADER]: "1" } });
    }
    return answer;
  }

  /**
   * Knob `budget`: the call counted against its bucket; a refusal (the provider's 429) when it is
   * past it, else the provider's rate-limit headers for the answer. Undefined: not counted.
   */
  #budget(request: Request, module: ProviderEmulatorModule) {
    const limit = this.#knobs.budget;
    const key = limit ? (module.budgetKey?.(request) ?? null) : null;
    if (!limit || key === null) return undefined;
    const header = Number(request.headers.get(EMULATOR_NOW_HEADER));
    const nowMs = limit.clock === "header" && Number.isFinite(header) && header > 0 ? header : Date.now();
    const bucket = this.#buckets.get(key) ?? new EmulatedBucket(limit, nowMs);
    this.#buckets.set(key, bucket);
    const { passed, view } = bucket.call(nowMs);
    if (!passed) {
      this.#throttled += 1;
      return { refusal: module.budgetRefusal?.(limit, view) ?? module.injectedError(429, nowMs) };
    }
    return { headers: module.budgetHeaders?.(limit, view) };
  }

  /** Takes a write to apply later (`landLateWrites`) and answers it as lost now. */
  async #late(request: Request, module: ProviderEmulatorModule): Promise<Response> {
    this.#knobs.lateWrites -= 1;
    this.#knobs.failures.push(...this.#knobs.failuresAfterLateWrite.map((f) => ({ ...f })));
    // The body is read now: the request's own stream ends with this answer.
    const body = await request.text();
    const init = { method: request.method, headers: request.headers, body: body === "" ? null : body };
    this.#lateWrites.push(async () => {
      this.#writes += 1;
      // Applied against the state as it is when it lands, as a late request would be.
      const answer = await module.handle(new Request(request.url, init), this.#state(), this.#outbound);
      await answer.body?.cancel();
    });
    return new Response(null, { status: 204, headers: { [LOST_ANSWER_HEADER]: "1" } });
  }

  /** Applies every write answered as lost (knob `lateWrites`), oldest first; says how many. */
  async landLateWrites(): Promise<number> {
    const late = this.#lateWrites.splice(0);
    for (const land of late) await land();
    return late.length;
  }

  /** Test knobs; replaces all knobs and resets the barrier count. */
  async configure(knobs: EmulatorKnobsInput): Promise<void> {
    this.#knobs = emulatorKnobsSchema.parse(knobs);
    this.#arrived = 0;
    // A budget turned on (again) starts full, as a provider's does after a quiet while.
    this.#buckets.clear();
    this.#release();
    for (const resolve of this.#heldWrites.splice(0)) resolve();
  }

  async stats(): Promise<{
    requests: number;
    writes: number;
    /** Calls answered 429 by knob `budget`. */
    throttled: number;
    waitingAtBarrier: number;
    heldWrites: number;
  }> {
    return {
      requests: this.#requests,
      writes: this.#writes,
      throttled: this.#throttled,
      waitingAtBarrier: this.#held.length,
      heldWrites: this.#heldWrites.length,
    };
  }

  /** Lets every held write go on (knob `holdWrites`). */
  async releaseWrites(): Promise<void> {
    for (const resolve of this.#heldWrites.splice(0)) resolve();
  }

  /** Raw state, for tests that check what the provider holds. */
  async dump(prefix = ""): Promise<Record<string, unknown>> {
    return Object.fromEntries(this.#state().list(prefix));
  }

  async seed(entries: Record<string, unknown>): Promise<void> {
    const state = this.#state();
    for (const [k, v] of Object.entries(entries)) state.put(k, v);
  }

  #barrier(): Promise<void> {
    this.#arrived += 1;
    if (this.#arrived >= this.#knobs.readBarrier) {
      this.#release();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#held.push(resolve));
  }

  #release(): void {
    for (const resolve of this.#held.splice(0)) resolve();
  }

  /**
   * A cloud fetching an issuer's documents: the issuer is this Worker (SPONSON_PUBLIC_URL), so the
   * request goes to its own entry, as it would arrive from the cloud over the network.
   */
  #outbound: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    // The main module's default export (typed loosely: workers-types has no declaration of it).
    const self = (this.ctx.exports as unknown as { default: { fetch(r: Request): Promise<Response> } })
      .default;
    return self.fetch(request);
  };

  #state(): EmulatorState {
    const kv = this.ctx.storage.kv;
    return {
      get: <T>(key: string) => kv.get<T>(key),
      put: <T>(key: string, value: T) => kv.put(key, value),
      delete: (key: string) => void kv.delete(key),
      list: <T>(prefix: string) => {
        const out = new Map<string, T>();
        for (const [k, v] of kv.list<T>({ prefix })) out.set(k, v);
        return out;
      },
    };
  }
}

/** `answer` with `headers` set (a copy: a module's response may be immutable). */
function withHeaders(answer: Response, headers: Record<string, string> | undefined): Response {
  if (!headers) return answer;
  const out = new Response(answer.body, answer);
  for (const [name, value] of Object.entries(headers)) out.headers.set(name, value);
  return out;
}
