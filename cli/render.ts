/** How runs, ledgers and locks read on a terminal and in CI logs: plain lines, no colours needed. */

import { fillPercent, fillShare, fillShareWords } from "../shared/fill-share";
import { holdingText } from "../shared/holding-text";
import { holderWords, type LockHolder, type RunHolder } from "../shared/schemas/provenance";
import type { Waiting } from "../shared/schemas/run";
import type { LockState, Receipt, RunEvent, RunResult, ScopeSummary } from "./client";
import { listFullLines } from "./list-full";

type LineResult = RunResult["lines"][number];

const MARKS: Record<LineResult["result"], string> = {
  created: "+",
  shared: "&",
  foreign: "=",
  removed: "-",
  released: "-&",
  unchanged: "=",
  "would-create": "~+",
  "would-remove": "~-",
  skipped: "·",
  "not-attempted": "·",
  failed: "x",
  "rolled-back": "<",
};

/** `preview/pr-1 in acme/web`: a scope belongs to one repository (older services do not say which). */
export function scopeName(scope: {
  repository?: { name: string } | undefined;
  environment: string;
  scope: string;
}): string {
  const where = `${scope.environment}/${scope.scope}`;
  return scope.repository ? `${where} in ${scope.repository.name}` : where;
}

type ErrorInfo = NonNullable<LineResult["error"]>;

/**
 * Says each lock conflict once per run: every line the conflict failed (and the run's own error)
 * carries the same long message, so after the first only the lock is named (docs/cli.md, "Output").
 */
export class Conflicts {
  readonly #said = new Set<string>();

  text(error: ErrorInfo): string {
    const lock = error.code === "LOCK_HELD" ? error.detail?.lock : undefined;
    if (typeof lock !== "string") return `${error.code}: ${error.message}`;
    if (this.#said.has(lock)) {
      const parent = error.detail?.parent;
      return `${error.code} on ${typeof parent === "string" ? parent : lock}, see above`;
    }
    this.#said.add(lock);
    return `${error.code}: ${error.message}`;
  }
}

export function lineText(line: LineResult, conflicts = new Conflicts()): string {
  // A line the run never reached says why instead of an error, and what it was going to do.
  const why = line.reason ? `${line.planned ? `planned: ${line.planned}; ` : ""}${line.reason}` : "";
  const error = line.error ? ` (${conflicts.text(line.error)})` : why ? ` (${why})` : "";
  return `  ${MARKS[line.result].padEnd(2)} ${line.id}  ${line.op}  ${line.result}  ${line.key}${error}`;
}

function holderText(holder: LockHolder | null): string {
  if (holder === null) return "being handed over";
  if ("hold" in holder)
    return `a hold by ${holder.hold.by} (${holder.hold.reason}) until ${iso(holder.hold.until)}`;
  return holderWords(holder);
}

/** `waiting for <lock> — held by pull #9 (octocat), position 2, 30 s, 90 s of the wait budget left`. */
export function waitingText(w: Waiting): string {
  const seconds = Math.round(w.waitedMs / 1000);
  // One budget for the run's whole wait (docs/design.md, "Lease protocol"); older services omit it.
  const left =
    w.budgetLeftMs === undefined ? "" : `, ${Math.round(w.budgetLeftMs / 1000)} s of the wait budget left`;
  return `  waiting for ${w.identity ?? w.lock} — held by ${holderText(w.holder)}, position ${w.position}, ${seconds} s${left}`;
}

/** One run's printer: `eventText` that says each lock conflict once (`Conflicts`). */
export function runPrinter(): (event: RunEvent) => string | null {
  const conflicts = new Conflicts();
  return (event) => eventText(event, conflicts);
}

/** One printed line per event; `null` for events that print nothing of their own. */
export function eventText(event: RunEvent, conflicts = new Conflicts()): string | null {
  switch (event.type) {
    case "run":
      return `${event.run.action} ${scopeName(event.run)} (run ${event.run.id})`;
    case "line":
      return lineText(event.line, conflicts);
    case "waiting":
      return waitingText(event.waiting);
    case "drift":
      return `  ! drift: ${event.drift.line} ${event.drift.key} is ${event.drift.kind} at the provider`;
    case "warning":
      return `  warning: ${event.message}`;
    case "result":
      return resultText(event.result, conflicts);
    case "error":
      return `error: ${event.error.code}: ${event.error.message}`;
    case "keepalive":
      return null;
  }
}

export function counts(result: RunResult): string {
  const tally = new Map<string, number>();
  for (const line of result.lines) tally.set(line.result, (tally.get(line.result) ?? 0) + 1);
  return [...tally].map(([outcome, n]) => `${n} ${outcome}`).join(", ") || "no lines";
}

export function resultText(result: RunResult, conflicts = new Conflicts()): string {
  const seconds = ((result.run.finishedAt - result.run.startedAt) / 1000).toFixed(1);
  const error = result.run.error ? ` (${conflicts.text(result.run.error)})` : "";
  const outcome = `${result.run.status} in ${seconds}s: ${counts(result)}${error}`;
  return [outcome, ...listFullLines(result.run.error)].join("\n");
}

const ms = (value: number) => `${value} ms`;

/**
 * `--verbose`: where the run's time went and the calls it made, after the outcome. Parts are each
 * the wall time some call of that kind was in flight, so they need not add up to the total.
 */
export function timingsText(result: RunResult): string[] {
  const { timings: t, counts: n } = result;
  if (!t || !n) return ["timings: not reported by this service"];
  return [
    `timings: total ${ms(t.total)}; authorization ${ms(t.authorization)}, scope lock ${ms(t.scopeLockWait)}, parent locks ${ms(t.parentLockWait)}, provider ${ms(t.provider)}, storage ${ms(t.storage)}${t.budgetWait ? `, provider budget ${ms(t.budgetWait)}` : ""}`,
    `counts: ${n.providerCalls} provider calls, ${n.lockOps} lock operations, ${n.storageReads} storage reads, ${n.storageWrites} storage writes`,
  ];
}

/** The whole run after the fact (the server answered JSON, not a stream). */
export function runText(result: RunResult): string[] {
  const { run } = result;
  const conflicts = new Conflicts();
  return [
    `${run.action} ${scopeName(run)} (run ${run.id})`,
    ...result.lines.map((l) => lineText(l, conflicts)),
    ...result.drift.map((d) => `  ! drift: ${d.line} ${d.key} is ${d.kind} at the provider`),
    ...result.warnings.map((w) => `  warning: ${w}`),
    resultText(result, conflicts),
  ];
}

export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const format = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [format(header), ...rows.map(format)];
}

const iso = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z"));

export function ledgerText(receipt: Receipt): string[] {
  const out = [
    `${scopeName(receipt)}: revision ${receipt.revision}, ${receipt.ledger.length} entries, ${receipt.intents.length} open intents`,
  ];
  if (receipt.ledger.length > 0) {
    out.push(
      "",
      ...table(
        ["LINE", "OP", "KEY", "HOLDING", "PARENT", "RUN"],
        receipt.ledger.map((e) => [e.line, e.op, e.key, holdingText(e), e.parent ?? "-", e.runId]),
      ),
    );
  }
  if (receipt.intents.length > 0) {
    out.push("", "Open intents:", ...receipt.intents.map((i) => `  ${i.action} ${i.key} (run ${i.runId})`));
  }
  if (receipt.runs.length > 0) {
    out.push(
      "",
      ...table(
        ["RUN", "ACTION", "STATUS", "FINISHED", "CREATED", "ERROR"],
        [...receipt.runs]
          .reverse()
          .map((r) => [
            r.id,
            r.action,
            r.status,
            iso(r.finishedAt),
            String(r.created.length),
            r.error?.code ?? "",
          ]),
      ),
    );
  }
  return out;
}

export function scopesText(scopes: ScopeSummary[]): string[] {
  if (scopes.length === 0) return ["no scope has a receipt"];
  return table(
    ["REPOSITORY", "ENVIRONMENT", "SCOPE", "ENTRIES", "UPDATED"],
    scopes.map((s) => [s.repository.name, s.environment, s.scope, String(s.entries), iso(s.uploadedAt)]),
  );
}

function expiresIn(lock: LockState, now: number): string {
  if (lock.expiresAt === null) return "-";
  return `${Math.max(0, Math.round((lock.expiresAt - now) / 1000))}s`;
}

/** The run as a person reads it, or its id where the service says nothing more (older services). */
function whoText(run: string | null, by: RunHolder | null | undefined): string {
  if (!by) return run ?? "-";
  return holderWords(by);
}

export function locksText(locks: LockState[], now: number): string[] {
  if (locks.length === 0) return ["no lock is held"];
  return table(
    ["KEY", "KIND", "IDENTITY", "HOLDER", "RUN", "SINCE", "EXPIRES IN", "WAITERS", "CI RUN"],
    locks.map((l) => [
      l.key,
      l.kind,
      l.identity ?? "-",
      l.hold && l.holder === null ? "(on hold)" : whoText(l.holder, l.heldBy),
      l.heldBy?.run ?? l.holder ?? "-",
      iso(l.since),
      expiresIn(l, now),
      String(l.waiters.length),
      l.heldBy?.runUrl ?? "-",
    ]),
  );
}

function runDetails(by: RunHolder | null | undefined, run: string | null): string {
  const where = by?.scope ? ` (${by.scope}${by.repository ? ` in ${by.repository}` : ""})` : "";
  const words = whoText(run, by);
  const id = by?.run ?? run ?? "-";
  return words === id ? `${id}${where}` : `${words}, run ${id}${where}`;
}

export function lockText(lock: LockState, now: number): string[] {
  const out = [
    `${lock.key} (${lock.kind}${lock.identity ? `: ${lock.identity}` : ""})`,
    lock.held
      ? `held by ${runDetails(lock.heldBy, lock.holder)} since ${iso(lock.since)}, expires in ${expiresIn(lock, now)}, token ${lock.token}`
      : "not held",
  ];
  if (lock.hold) {
    out.push(`on hold until ${iso(lock.hold.until)}, set by ${lock.hold.by}: ${lock.hold.reason}`);
  }
  if (lock.heldBy?.runUrl) out.push(`CI run: ${lock.heldBy.runUrl}`);
  if (lock.waiters.length > 0) {
    out.push(
      `waiters: ${lock.waiters.map((w) => w.holder).join(", ")}`,
      ...lock.waiters.map((w, at) => `  ${w.position ?? at + 1}. ${runDetails(w.by, w.holder)}`),
    );
  }
  if (lock.fills && lock.fills.length > 0) {
    // Each capped list as the last write left it; above 80 % the sweep reports it (docs/operations.md).
    const share = (f: { cap: number; entries: number }) => {
      const words = fillShareWords(fillShare(f));
      return `${fillPercent(f)} %${words ? ` (${words})` : ""}`;
    };
    out.push(
      "",
      ...table(
        ["LIST", "ENTRIES", "CAP", "FILL", "SHARES", "SEEN"],
        lock.fills.map((f) => [
          f.list ? `${f.op} (${f.list})` : f.op,
          String(f.entries),
          String(f.cap),
          share(f),
          // Each repository's share of the list (docs/design.md, "A share of each list").
          (f.repositories ?? [])
            .map((r) => `${r.name ?? (r.id === null ? "other" : `#${r.id}`)} ${r.entries}`)
            .join(", ") || "-",
          iso(f.at),
        ]),
      ),
    );
  }
  if (lock.history.length > 0) {
    out.push(
      "",
      ...table(
        ["AT", "TRANSITION", "HOLDER", "TOKEN", "NOTE"],
        lock.history.map((h) => [iso(h.at), h.transition, h.holder, String(h.token), h.note ?? ""]),
      ),
    );
  }
  return out;
}
