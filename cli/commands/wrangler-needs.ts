/**
 * What a wrangler config must declare for the Worker to run: every list of tables in the
 * repository's wrangler.toml (Durable Object bindings, migrations, rate limiters, R2 buckets, queue
 * producers and consumers, and any kind added there later), each entry by its name. That file is
 * the one source of truth (docs/deploy.md, "Check the configuration"); the CLI's bundle carries a copy of it
 * (cli/build.mjs), so an installed CLI checks against the release it came with.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { ConfigProblem } from "../../workers/config/config-report";
import { queueNames } from "../../workers/queue/queue-names";

declare const SPONSON_WRANGLER_TOML: string;

type Table = Record<string, unknown>;

const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

/** The root config: bundled by cli/build.mjs, read from the checkout when run from source (tests). */
export function workerConfig(): Table {
  const text =
    typeof SPONSON_WRANGLER_TOML === "string"
      ? SPONSON_WRANGLER_TOML
      : readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
  return parseToml(text) as Table;
}

/** `path → entries` for every array of tables outside [vars] and [env.*] (a deployment's own). */
function tableLists(config: Table, prefix = ""): Map<string, Table[]> {
  const lists = new Map<string, Table[]>();
  for (const [key, value] of Object.entries(config)) {
    if (prefix === "" && (key === "vars" || key === "env")) continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (Array.isArray(value) && value.every(isTable)) lists.set(path, value);
    else if (isTable(value)) for (const [p, l] of tableLists(value, path)) lists.set(p, l);
  }
  return lists;
}

const KINDS: Record<string, string> = {
  "durable_objects.bindings": "Durable Object binding",
  migrations: "migration",
  ratelimits: "rate limiter",
  r2_buckets: "R2 bucket binding",
  "queues.producers": "queue producer binding",
  "queues.consumers": "consumer of queue",
  analytics_engine_datasets: "Analytics Engine binding",
};

/**
 * An entry's name: a migration's tag, a consumer's queue, else its binding name. The four queues are
 * named by the deployment's vars (SPONSON_DESTROY_QUEUE…, SPONSON_NOTIFY_QUEUE…), so a consumer of
 * the root's is translated to the deployment's name.
 */
function nameOf(path: string, entry: Table, queues: Map<string, string>): string {
  if (path === "migrations") return String(entry.tag);
  if (path === "queues.consumers") return queues.get(String(entry.queue)) ?? String(entry.queue);
  return String(entry.binding ?? entry.name ?? entry.tag ?? JSON.stringify(entry));
}

/** Every entry of the root config the given one lacks, by name, in the root's order. */
export function missingBindings(
  config: Table,
  vars: Record<string, unknown>,
  root = workerConfig(),
): ConfigProblem[] {
  const translate = queueTranslation(vars, root);
  const given = tableLists(config);
  const problems: ConfigProblem[] = [];
  for (const [path, entries] of tableLists(root)) {
    const have = new Map((given.get(path) ?? []).map((e) => [nameOf(path, e, new Map()), e]));
    for (const entry of entries) {
      const name = nameOf(path, entry, translate);
      const found = have.get(name);
      const kind = KINDS[path] ?? `${path} entry`;
      const cls = typeof entry.class_name === "string" ? ` (class ${entry.class_name})` : "";
      if (!found)
        problems.push({ path, message: `no ${kind} ${name}${cls}, which the Worker needs (wrangler.toml)` });
      else if (cls !== "" && found.class_name !== entry.class_name)
        problems.push({
          path,
          message: `${name} binds class ${String(found.class_name)}; the Worker's is ${String(entry.class_name)}`,
        });
      else problems.push(...queueMismatch(path, entry, found, translate));
    }
  }
  const crons = (root.triggers as { crons?: unknown[] } | undefined)?.crons ?? [];
  const givenCrons = (config.triggers as { crons?: unknown[] } | undefined)?.crons ?? [];
  if (crons.length > 0 && givenCrons.length === 0)
    problems.push({
      path: "triggers.crons",
      message: "no cron trigger: the sweep (workers/sweep/) never runs",
    });
  return problems;
}

/**
 * The Worker's code: `main`, resolved as wrangler resolves it (from the config file's folder), must be
 * a file, and the production entry's: the dev entry (provider emulators, test hooks) never ships. A
 * config copied elsewhere than docs/deploy.md says keeps a `main` that names nothing, which only
 * `wrangler deploy` would find ("entry-point file … not found").
 */
export function entryPointProblems(
  config: Table,
  configPath: string,
  root = workerConfig(),
): ConfigProblem[] {
  const main = config.main;
  const want = String(root.main);
  if (typeof main !== "string" || main === "")
    return [{ path: "main", message: `not set: wrangler has no entry point (the Worker's is ${want})` }];
  const file = resolve(dirname(configPath), main);
  if (!existsSync(file))
    return [
      {
        path: "main",
        message: `${main} is not a file beside this config (it resolves to ${file}): wrangler deploy fails "entry-point file not found"; main is relative to the config's folder, ${want} from the checkout's root (docs/deploy.md)`,
      },
    ];
  if (/(^|[/])dev[/]entry[/]/.test(file))
    return [
      {
        path: "main",
        message: `${main} is the dev entry (provider emulators and test hooks), never deployed: the Worker's entry is ${want}`,
      },
    ];
  return [];
}

/** The queue names every consumer of the root config may read, as the given vars name them. */
export function knownQueues(vars: Record<string, unknown>, root = workerConfig()): Set<string> {
  const translate = queueTranslation(vars, root);
  const consumers = (root.queues as { consumers?: Table[] } | undefined)?.consumers ?? [];
  return new Set(consumers.map((c) => translate.get(String(c.queue)) ?? String(c.queue)));
}

/** Each queue name of the root config → the one the given vars resolve it to (workers/queue/queue-names.ts). */
function queueTranslation(vars: Record<string, unknown>, root: Table): Map<string, string> {
  const rootQueues = queueNames(stringVars(root));
  const ours = queueNames(vars);
  return new Map(
    (Object.keys(rootQueues) as (keyof typeof rootQueues)[]).map((role) => [rootQueues[role], ours[role]]),
  );
}

/**
 * A producer bound by the right name but sending to another queue (another deployment's, say) loses
 * every message to that queue's consumer; a main consumer without the dead-letter queue the vars name
 * drops what exhausts its retries unseen (docs/deploy.md, "Resources").
 */
function queueMismatch(
  path: string,
  entry: Table,
  found: Table,
  translate: Map<string, string>,
): ConfigProblem[] {
  const ours = (q: unknown) => translate.get(String(q)) ?? String(q);
  if (path === "queues.producers" && typeof entry.queue === "string" && found.queue !== ours(entry.queue))
    return [
      {
        path,
        message: `${String(entry.binding)} sends to ${String(found.queue)}, but the vars name ${ours(entry.queue)} (its consumer)`,
      },
    ];
  if (path !== "queues.consumers" || typeof entry.dead_letter_queue !== "string") return [];
  const want = ours(entry.dead_letter_queue);
  const queue = ours(entry.queue);
  if (found.dead_letter_queue === undefined)
    return [
      {
        path,
        message: `consumer of queue ${queue} has no dead_letter_queue (${want}): messages that exhaust their retries are dropped`,
      },
    ];
  if (found.dead_letter_queue !== want)
    return [
      {
        path,
        message: `consumer of queue ${queue} sends its dead letters to ${String(found.dead_letter_queue)}, but the vars name ${want}`,
      },
    ];
  return [];
}

function stringVars(config: Table): Record<string, unknown> {
  return isTable(config.vars) ? config.vars : {};
}
