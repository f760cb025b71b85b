// Statistics and the Markdown tables of `npm run bench`.
import { costPerMillion, PRICES, QUEUED_DESTROY_USD_PER_MILLION } from "./cost.mjs";
import { targetTable } from "./targets.mjs";

export function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const rank = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { median: rank(0.5), p99: rank(0.99), n: s.length };
}

export const median = (x) => x?.median;
export const fmt = (ms) =>
  ms === undefined || Number.isNaN(ms)
    ? "—"
    : ms >= 100
      ? ms.toFixed(0)
      : ms >= 10
        ? ms.toFixed(1)
        : ms.toFixed(2);
const mp = (s) => (s ? `${fmt(s.median)} / ${fmt(s.p99)}` : "skipped");
const ratio = (a, b) => (a && b ? `${(a.median / b.median).toFixed(2)}×` : "—");

/**
 * Polling waiters with the usual back-off (1 s, doubling: Terraform's -lock-timeout retry): polls at
 * 0, 1, 3, 7, 15 … s; the holder releases at a uniformly random moment in 0–20 s; the handoff is the
 * wait until the next poll plus one try-acquire round trip (measured against Redis in the same run).
 */
export function pollingHandoff(tryAcquireMs, samples = 20_000) {
  let seed = 0x5eed;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  const out = [];
  for (let i = 0; i < samples; i++) {
    const release = rnd() * 20_000;
    let poll = 0;
    let step = 1_000;
    while (poll < release) {
      poll += step;
      step *= 2;
    }
    out.push(poll - release + tryAcquireMs);
  }
  return { model: "release uniform in 0–20 s, polls at 1 s doubling", tryAcquireMs, ...summary(out) };
}

/** A target line: the figure, what it is held to, and whether this run met it. */
export function target(label, figure, bound, boundLabel) {
  if (figure === undefined || bound === undefined) return `- target ${label}: not measured in this run`;
  const verdict =
    figure <= bound ? "met" : `missed by ${fmt(figure - bound)} ms (${(figure / bound).toFixed(2)}×)`;
  return `- target ${label}: ${fmt(figure)} ms vs ${boundLabel} ${fmt(bound)} ms — **${verdict}**`;
}

/** Median handoff allowed by issue 13's target, in ms. */
export const HANDOFF_TARGET_MS = 2;

export function tables(r) {
  const L = [targetTable(r)];
  const ours = r.http?.emptyApply;
  const rt = r.runtime?.leaseRoundTrip;
  L.push("### Lease round trip, uncontended (ms, median / p99)", "");
  L.push("| what | ms | Sponson over HTTP ÷ this | Sponson in-runtime ÷ this |", "| --- | --- | --- | --- |");
  const row = (what, x) => L.push(`| ${what} | ${mp(x)} | ${ratio(ours, x)} | ${ratio(rt, x)} |`);
  row(
    "Sponson over HTTP: apply of an empty plan (auth, scope-state reads, scope lease acquire + release, receipt read + conditional put)",
    ours,
  );
  row("Sponson over HTTP: GET /v1/locks/{key} (one lock-object read)", r.http?.lockRead);
  row("Sponson over HTTP: GET /healthz (HTTP floor of the local runtime)", r.http?.healthz);
  row("Sponson inside the runtime: Worker → lock object acquire + release (RPC)", rt);
  row("Redis SET NX PX + compare-and-delete (Lua), loopback", r.baselines?.redis);
  row("etcd lock + unlock (v3 HTTP gateway, session lease), loopback", r.baselines?.etcd);
  row("git update-ref CAS create + delete (local bare repository)", r.baselines?.gitRef);
  L.push("");
  L.push(
    target(
      "in-runtime acquire+release ≤ etcd lock+unlock (medians)",
      median(rt),
      median(r.baselines?.etcd),
      "etcd",
    ),
    "",
  );
  const h = r.runtime?.handoff;
  const p = r.handoffPolling;
  L.push("### Handoff: release → next waiter holds the lock (ms, median / p99)", "");
  L.push("| waiter | ms | this ÷ Sponson |", "| --- | --- | --- |");
  L.push(`| Sponson: FIFO queue inside the lock object (in-runtime relay, per handoff) | ${mp(h)} | 1.00× |`);
  L.push(
    `| polling with 1 s doubling back-off (modelled; try-acquire = measured Redis RTT) | ${mp(p)} | ${ratio(p, h)} |`,
  );
  L.push("");
  L.push(target("handoff ≤ 2 ms (median)", median(h), HANDOFF_TARGET_MS, "target"), "");
  L.push(
    `### Contended apply: K scopes × 3 entries on one Auth0 application (${r.runtime?.contended?.[0]?.latencyMs ?? "?"} ms per provider call)`,
    "",
  );
  L.push(
    "| K | provider calls / run | writes / run | floor ms (one run's calls) | serial bound ms | wall ms (median / p99) | wall / bound | lost | combining on: wall ms (median / p99) | combining on: provider writes for K runs | combining on: wall ÷ its K = 1 wall | control (no parent locks) wall ms | control lost (median / max) |",
  );
  L.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const c of r.runtime?.contended ?? []) {
    const on = c.combining;
    L.push(
      `| ${c.k} | ${fmt(c.callsPerRun)} | ${fmt(c.writesPerRun)} | ${fmt(c.floorMs)} | ${fmt(c.serialBoundMs)} | ${mp(c.wallMs)} | ${c.wallOverSerialBound.toFixed(2)} | ${c.lost} | ${on ? mp(on.wallMs) : "—"} | ${on ? on.writes.median : "—"} | ${on ? on.wallOverK1.toFixed(2) : "—"} | ${mp(c.controlWallMs)} | ${c.controlLost.median} / ${c.controlLost.p99} of ${c.k * 3} |`,
    );
  }
  L.push(
    "",
    "Columns up to `lost` run with write combining off (each run its own read-modify-write: the serial bound's case); `combining on` is the default.",
    "",
  );
  L.push("### Independent objects: K scopes on K different applications", "");
  L.push("| K | wall ms (median / p99) | ratio to K = 1 |", "| --- | --- | --- |");
  const ind = r.runtime?.independent ?? [];
  for (const c of ind) L.push(`| ${c.k} | ${mp(c.wallMs)} | ${ratio(c.wallMs, ind[0]?.wallMs)} |`);
  L.push("");
  const s = r.runtime?.steady;
  L.push("### Steady state: re-applying an unchanged 100-line plan", "");
  L.push(
    "| parent lock operations | provider writes | scope leases per run | wall ms (median / p99) |",
    "| --- | --- | --- | --- |",
  );
  if (s) L.push(`| ${s.parentLockOps} | ${s.providerWrites} | ${s.scopeLeasesPerRun} | ${mp(s.wallMs)} |`);
  L.push("");
  const l = r.load;
  L.push("### Load against the local service (wrangler dev)", "");
  L.push(
    "| runs | scopes | shared objects | wall ms | per run ms (median / p99) | HTTP statuses | 5xx | entries lost |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  if (l)
    L.push(
      `| ${l.runs} | ${l.scopes} | ${l.sharedObjects} | ${fmt(l.wallMs)} | ${mp(l.perRunMs)} | ${JSON.stringify(l.httpStatuses)} | ${l.fiveXx} | ${l.entriesLost} |`,
    );
  L.push("");
  const tk = r.runtime?.tokens;
  L.push(
    `### Token exchanges: ${tk?.runs ?? 200} runs, ${tk?.scopes ?? 50} scopes, ${tk?.connections ?? 10} connections, every run on an isolate of its own`,
    "",
  );
  L.push("| token objects | token exchanges | failed runs | wall ms |", "| --- | --- | --- | --- |");
  if (tk) {
    L.push(
      `| on (the fleet shares one token per connection) | ${tk.withObject.exchanges} | ${tk.withObject.failed} | ${fmt(tk.withObject.wallMs)} |`,
    );
    L.push(
      `| off (each isolate buys its own) | ${tk.withoutObject.exchanges} | ${tk.withoutObject.failed} | ${fmt(tk.withoutObject.wallMs)} |`,
    );
  }
  L.push("");
  L.push(...budgetTable(r));
  L.push(...cpuTables(r), ...costTables(r));
  L.push("### Memory and storage", "");
  L.push("| what | value |", "| --- | --- |");
  L.push(
    `| peak RSS of workerd, in-runtime bench (contended runs included) | ${fmt(r.memory?.workerdPeakRssMiBInRuntimeBench)} MiB |`,
  );
  L.push(
    `| peak RSS of workerd under wrangler dev, after the load run | ${fmt(r.memory?.workerdPeakRssMiBAfterLoad)} MiB |`,
  );
  const st = r.runtime?.storagePerLock;
  if (st)
    L.push(
      `| SQLite size of one lock object (databaseSize) after 1 / 200 acquire-release cycles | ${st.afterOneCycle} / ${st.after200Cycles} bytes |`,
    );
  if (r.skipped?.length) L.push("", ...r.skipped.map((x) => `- skipped: ${x}`));
  L.push(
    "",
    `_${r.machine.cpus} CPUs, shared with other work; run ${r.startedAt}. Absolute numbers are noisy; ratios come from the same run._`,
  );
  return L.join("\n");
}

/** CPU per run (workerd's /proc CPU) and where a profiled apply's samples fall. */
function cpuTables(r) {
  const L = ["### CPU per run", ""];
  L.push("| what | CPU ms |", "| --- | --- |");
  L.push(
    `| 200-run load over HTTP: workerd CPU ÷ runs (Worker, objects, R2 simulator, emulators) | ${fmt(r.load?.cpuMsPerRun)} |`,
  );
  const p = r.profile;
  L.push(
    `| one three-line apply on a warm application (mean of ${p?.applies ?? "?"} profiled, same measure) | ${fmt(p?.cpuMsPerApply)} |`,
  );
  const c = r.cpuPerRequest;
  if (c) {
    L.push(
      `| the same apply with no profiler attached (mean of 20) | ${fmt(c.applyUnprofiled)} |`,
      `| one \`GET /healthz\` (the local runtime's cost of a request that does nothing; mean of 100) | ${fmt(c.healthz)} |`,
      `| one \`GET /v1/locks/{key}\` (a request and one lock-object call; mean of 100) | ${fmt(c.lockRead)} |`,
    );
  }
  L.push("");
  const w = r.warmPath;
  if (w) {
    L.push(
      `The warm one-line path (one new line, new scope, warm application): ${w.lockOps ?? "?"} lock-object calls; ${w.count} product files on a sampled stack over ${w.applies} applies (every ${w.intervalUs} µs; a lower bound):`,
      "",
      w.files.map((f) => `\`${f.file}\``).join(", "),
      "",
    );
  }
  if (!p) return L;
  L.push(
    `Sampled profile of those applies (${p.busySamples} busy samples of ${p.samples}; share of busy samples):`,
    "",
  );
  L.push(
    "| source file (self) | share | | function of ours, with the library and runtime time it called | share |",
    "| --- | --- | --- | --- | --- |",
  );
  for (let i = 0; i < 15; i++) {
    const f = p.files[i];
    const c = p.ourCallers[i];
    L.push(
      `| ${f ? f.what : ""} | ${f ? `${(f.share * 100).toFixed(1)}%` : ""} | | ${c ? c.what : ""} | ${c ? `${(c.share * 100).toFixed(1)}%` : ""} |`,
    );
  }
  L.push("");
  return L;
}

const usd = (x) => (x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(3)}`);

/** The bill of a million runs, from the runs' own counts (bench/cost.mjs). */
function costTables(r) {
  const perCallMs = (r.runtime?.leaseRoundTrip?.median ?? 2) / 2;
  const cases = [];
  const l = r.load;
  if (l?.countsPerRun)
    cases.push({
      name: "the 200-run load's mix (mean counts)",
      ...costPerMillion({
        counts: l.countsPerRun,
        cpuMs: l.cpuMsPerRun,
        lockWaitMs: l.lockWaitMsPerRun,
        perCallMs,
      }),
    });
  const w = r.runtime?.warm?.counts;
  if (w)
    cases.push({
      name: "a three-line apply that writes (warm connection)",
      ...costPerMillion({
        counts: w,
        cpuMs: r.profile?.cpuMsPerApply ?? l?.cpuMsPerRun ?? 0,
        perCallMs,
      }),
    });
  if (cases.length === 0) return [];
  const L = [
    `### Cost per million runs (USD, Cloudflare prices read ${PRICES.read}, beyond the plan's allowances)`,
    "",
  ];
  L.push(
    `| item | ${cases.map((c) => `${c.name}: per run`).join(" | ")} | ${cases.map((c) => `${c.name}: per million runs`).join(" | ")} |`,
  );
  L.push(`| --- | ${cases.map(() => "---").join(" | ")} | ${cases.map(() => "---").join(" | ")} |`);
  cases[0].lines.forEach((line, i) => {
    const per = cases.map((c) => `${Number(c.lines[i].perRun.toPrecision(3))} ${c.lines[i].unit}`);
    const cost = cases.map((c) => usd(c.lines[i].usdPerMillionRuns));
    L.push(`| ${line.what} | ${per.join(" | ")} | ${cost.join(" | ")} |`);
  });
  L.push(
    `| **total** | ${cases.map(() => "").join(" | ")} | ${cases.map((c) => `**${usd(c.totalUsdPerMillionRuns)}**`).join(" | ")} |`,
  );
  L.push(
    "",
    `A queued destroy (closed pull request) adds ${usd(QUEUED_DESTROY_USD_PER_MILLION)} per million in queue operations (write, read, delete).`,
    "",
  );
  return L;
}

/** Per-tenant write budgets: one burst of applies on one tenant, with and without the shared budget. */
export function budgetTable(r) {
  const b = r.runtime?.budget;
  const L = [
    `### Write budgets: ${b?.applies ?? 64} applies over ${b?.applications ?? 8} applications of one Auth0 Free tenant (burst ${b?.budget?.burst ?? 2}, ${b?.budget?.perSecond ?? 2}/s, enforced by the emulator; ${b?.latencyMs ?? "?"} ms per provider call)`,
    "",
    "| fleet's budget objects | wall ms | calls counted | writes | floor ms (calls counted) | wall ÷ floor | 429s | failed runs | entries missing | runs that waited for budget (longest ms) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  if (!b) return [...L, "", "- not measured in this run", ""];
  // The control's floor would be of the calls it made, refused ones retried: nothing to hold it to.
  const row = (what, x, held) =>
    `| ${what} | ${fmt(x.wallMs)} | ${x.counted} | ${x.writes} | ${held ? fmt(x.floorMs) : "—"} | ${held ? `${(x.wallMs / x.floorMs).toFixed(2)}×` : "—"} | ${x.refused429} | ${x.failed} | ${x.missing} | ${x.runsWaitingForBudget} (${fmt(x.budgetWaitMaxMs)}) |`;
  L.push(
    row("on (one bucket per tenant)", b.shared, true),
    row("off (control: each run meets the 429s)", b.control, false),
    "",
  );
  L.push(
    target(
      "wall ≤ 1.2 × the budget's floor for the calls counted",
      b.shared.wallMs,
      1.2 * b.shared.floorMs,
      "1.2 × floor",
    ),
    `- the fewest calls the writes need (each application read once, written once) allow ${fmt(b.fewestCallsFloorMs)} ms: wall ÷ that floor ${(b.shared.wallMs / b.fewestCallsFloorMs).toFixed(2)}×`,
    "",
  );
  return L;
}
