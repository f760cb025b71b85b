/**
 * The sweep's re-drive of parked destroys (docs/design.md, "Webhooks and the sweep"; docs/storage.md,
 * "Dead letters"): it pages through every parked letter with R2's cursor, at most REDRIVE_BUDGET a
 * sweep, the next sweep starting after the last one handled; a letter that will never be re-driven
 * (unparseable, of a repository or environment no longer configured, re-driven MAX_REDRIVES times,
 * parked longer than DEAD_LETTER_MAX_AGE_MS) is moved to audit/dead-letters/ with its reason, so it
 * never stands in front of one that will; a letter whose send failed stays for the next sweep.
 * Its own runtime (vitest.config.ts): it lists every parked letter, and clears them per test.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { Env } from "../../shared/env";
import { listAudit } from "../../workers/audit/audit-trail";
import { SET_ASIDE_PREFIX, setAsideLetterSchema } from "../../workers/audit/set-aside-letters";
import { DEAD_LETTER_PREFIX, type DeadLetter } from "../../workers/queue/dead-letters";
import type { QueuedDestroy } from "../../workers/queue/queued-destroy";
import {
  DEAD_LETTER_MAX_AGE_MS,
  MAX_REDRIVES,
  REDRIVE_BUDGET,
  REDRIVE_RESUME_KEY,
  type RedriveReport,
  redriveDeadLetters,
} from "../../workers/sweep/redrive-dead-letters";
import { sweepAndReport } from "../../workers/sweep/sweep-handler";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { idleSweepParts } from "./idle-sweep-parts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A queue that records what it is sent and delivers nothing; `refuse` makes a send throw. */
function recordingQueue(refuse: (job: QueuedDestroy) => boolean = () => false) {
  const sent: QueuedDestroy[] = [];
  const queue = {
    send: async (body: QueuedDestroy) => {
      if (refuse(body)) throw new Error("test: the queue refused the send");
      sent.push(body);
    },
  } as unknown as Queue<QueuedDestroy>;
  return { sent, env: Object.assign(Object.create(env as object), { DESTROY_QUEUE: queue }) as Env };
}

function job(overrides: Partial<QueuedDestroy> = {}): QueuedDestroy {
  return {
    repositoryId: DEFAULT_REPOSITORY.id,
    environment: "preview",
    scope: "pr-7",
    revision: Date.parse("2026-04-01T09:00:00Z"),
    deliveryId: crypto.randomUUID(),
    ...overrides,
  };
}

function letter(body: unknown, deadAt = Date.now()): DeadLetter {
  return { messageId: crypto.randomUUID(), body, attempts: 6, deadAt };
}

/** Parks `content` as `dead-letters/<name>.json` (JSON unless a string is given). */
async function park(name: string, content: unknown): Promise<string> {
  const key = `${DEAD_LETTER_PREFIX}${name}.json`;
  await env.RECEIPTS.put(key, typeof content === "string" ? content : JSON.stringify(content));
  return key;
}

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.RECEIPTS.list({ prefix, ...(cursor ? { cursor } : {}) });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys;
}

async function setAsideRecords() {
  const records = [];
  for (const key of await keysUnder(SET_ASIDE_PREFIX)) {
    const stored = await env.RECEIPTS.get(key);
    records.push({ at: key, record: setAsideLetterSchema.parse(await stored?.json()) });
  }
  return records;
}

async function sweep(testEnv: Env): Promise<RedriveReport> {
  const report = await sweepAndReport(createScheduledController(), testEnv, idleSweepParts).catch(
    (err: unknown) => {
      throw new Error(`sweep failed: ${String(err)}`);
    },
  );
  if (!report.deadLetters.ok) throw new Error(report.deadLetters.error);
  return report.deadLetters.value;
}

beforeEach(async () => {
  const keys = [
    ...(await keysUnder(DEAD_LETTER_PREFIX)),
    ...(await keysUnder(SET_ASIDE_PREFIX)),
    REDRIVE_RESUME_KEY,
  ];
  for (let i = 0; i < keys.length; i += 500) await env.RECEIPTS.delete(keys.slice(i, i + 500));
});

describe("the dead-letter re-drive", () => {
  it("re-drives a good letter behind more than a sweep's budget of letters that will never be", async () => {
    // Sorted first: letters the old re-drive left in place at every sweep (unusable or stuck).
    const stuck = REDRIVE_BUDGET + 5;
    for (let i = 0; i < stuck; i++) {
      const name = `0-${String(i).padStart(4, "0")}`;
      if (i % 3 === 0) await park(name, "not json {");
      else if (i % 3 === 1) await park(name, letter({ hello: "not a destroy" }));
      else await park(name, letter(job({ redrives: MAX_REDRIVES })));
    }
    const good = job();
    const goodKey = await park("z-good", letter(good));
    const queue = recordingQueue();
    // The first sweep spends its budget on the ones in front, moving them aside; the next one
    // starts after the last it handled.
    const first = await sweep(queue.env);
    expect(first.setAside).toHaveLength(REDRIVE_BUDGET);
    expect(first.redriven).toEqual([]);
    expect(first.resumeAfter).toBe(
      `${DEAD_LETTER_PREFIX}0-${String(REDRIVE_BUDGET - 1).padStart(4, "0")}.json`,
    );
    const second = await sweep(queue.env);
    expect(second.setAside).toHaveLength(stuck - REDRIVE_BUDGET);
    expect(second.redriven).toEqual([goodKey]);
    expect(second.resumeAfter).toBeNull();
    expect(queue.sent).toContainEqual({ ...good, redrives: 1 });
    expect(await env.RECEIPTS.head(goodKey)).toBeNull();
    expect(await keysUnder(DEAD_LETTER_PREFIX)).toEqual([]);
    expect(await keysUnder(SET_ASIDE_PREFIX)).toHaveLength(stuck);
  });

  it("moves each letter that will never be re-driven to audit/dead-letters/, with its reason", async () => {
    const now = Date.now();
    const parked = {
      "not-json": await park("not-json", "{ truncated"),
      "not-a-letter": await park("not-a-letter", { something: "else" }),
      "not-a-destroy": await park("not-a-destroy", letter({ scope: 7 })),
      repository: await park("repository", letter(job({ repositoryId: 424_242 }))),
      environment: await park("environment", letter(job({ environment: "qa" }))),
      exhausted: await park("exhausted", letter(job({ redrives: MAX_REDRIVES }))),
      old: await park("old", letter(job(), now - DEAD_LETTER_MAX_AGE_MS - DAY_MS)),
    };
    const queue = recordingQueue();
    const report = await sweep(queue.env);
    expect(queue.sent).toEqual([]);
    expect(report.redriven).toEqual([]);
    const reasons = Object.fromEntries(report.setAside.map((s) => [s.key, s.reason]));
    expect(reasons).toEqual({
      [parked["not-json"]]: "unparseable",
      [parked["not-a-letter"]]: "unparseable",
      [parked["not-a-destroy"]]: "unparseable",
      [parked.repository]: "repository-not-configured",
      [parked.environment]: "environment-not-configured",
      [parked.exhausted]: "redrives-exhausted",
      [parked.old]: "too-old",
    });
    expect(await keysUnder(DEAD_LETTER_PREFIX)).toEqual([]);

    // Where docs/storage.md says: one record per letter, naming where it was parked and why.
    const records = await setAsideRecords();
    expect(records).toHaveLength(7);
    for (const { at, record } of records) {
      expect(at).toMatch(/^audit\/dead-letters\/\d{13}-[^/]+\.json$/);
      expect(report.setAside.find((s) => s.key === record.key)?.to).toBe(at);
      expect(record).toMatchObject({ actor: "sweep", reason: reasons[record.key] });
    }
    const repository = records.find((r) => r.record.key === parked.repository)?.record;
    expect(repository).toMatchObject({
      repositoryId: 424_242,
      environment: "preview",
      scope: "pr-7",
      letter: { body: { repositoryId: 424_242 } },
    });
    expect(records.find((r) => r.record.key === parked["not-json"])?.record.raw).toBe("{ truncated");

    // Listed for an operator: GET /v1/audit and the dashboard read the audit trail.
    const audit = (await listAudit(env)).filter((e) => e.kind === "dead-letter-set-aside");
    expect(audit.map((e) => (e.kind === "dead-letter-set-aside" ? e.key : null)).sort()).toEqual(
      Object.values(parked).sort(),
    );
  });

  it("leaves a letter whose send failed parked for the next sweep, which re-drives it", async () => {
    const flaky = job();
    const other = job();
    const flakyKey = await park("a-flaky", letter(flaky));
    const otherKey = await park("b-other", letter(other));
    const refusing = recordingQueue((j) => j.deliveryId === flaky.deliveryId);
    const first = await sweepAndReport(createScheduledController(), refusing.env, idleSweepParts).then(
      () => null,
      (err: unknown) => err,
    );
    // The invocation fails (Cron history shows it), after every other letter was handled.
    expect(String(first)).toContain("a part failed");
    expect(refusing.sent).toEqual([{ ...other, redrives: 1 }]);
    expect(await env.RECEIPTS.head(flakyKey)).not.toBeNull();
    expect(await env.RECEIPTS.head(otherKey)).toBeNull();
    expect(await keysUnder(SET_ASIDE_PREFIX)).toEqual([]);

    const working = recordingQueue();
    const second = await sweep(working.env);
    expect(second.redriven).toEqual([flakyKey]);
    expect(working.sent).toEqual([{ ...flaky, redrives: 1 }]);
    expect(await env.RECEIPTS.head(flakyKey)).toBeNull();
  });

  it("stops at its budget, and the next sweep resumes after the last letter it handled", async () => {
    const keys = [];
    for (const name of ["a", "b", "c", "d", "e"]) keys.push(await park(name, letter(job())));
    // Every send fails, so every letter stays and each sweep's share is what it names.
    const refusing = recordingQueue(() => true);
    const now = Date.now();
    const failedKeys = (r: RedriveReport) => r.failed.map((f) => f.key);
    const first = await redriveDeadLetters(refusing.env, now, 3);
    expect(failedKeys(first)).toEqual(keys.slice(0, 3));
    expect(first.resumeAfter).toBe(keys[2]);
    const second = await redriveDeadLetters(refusing.env, now, 3);
    expect(failedKeys(second)).toEqual(keys.slice(3));
    // It reached the end: the next one starts from the first again.
    expect(second.resumeAfter).toBeNull();
    expect(await env.RECEIPTS.head(REDRIVE_RESUME_KEY)).toBeNull();
    const third = await redriveDeadLetters(refusing.env, now, 3);
    expect(failedKeys(third)).toEqual(keys.slice(0, 3));
  });

  it("sets nothing aside when the repositories cannot be read: the part fails, every letter stays", async () => {
    const key = await park("unread", letter(job({ repositoryId: 424_242 })));
    const queue = recordingQueue();
    const broken = Object.assign(Object.create(queue.env as object), {
      SPONSON_REPOSITORIES: "not json",
    }) as Env;
    const report = await sweepAndReport(createScheduledController(), broken, idleSweepParts).then(
      () => null,
      (err: unknown) => err,
    );
    expect(String(report)).toContain("a part failed");
    expect(await env.RECEIPTS.head(key)).not.toBeNull();
    expect(await keysUnder(SET_ASIDE_PREFIX)).toEqual([]);
  });
});
