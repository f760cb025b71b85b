/**
 * The config report's part for what operators set for notifications and lost destroys
 * (docs/operations.md): SPONSON_NOTIFY against its schema, with the secrets it names set, and the
 * close-grace numbers read as the sweep reads them. Names only, never a value.
 */
import { notifyConfigSchema } from "../notify/notify-config";
import { closeGraceFromEnv } from "../sweep/close-grace";
import type { ConfigProblem } from "./config-report";

type Vars = Readonly<Record<string, unknown>>;

const unset = (value: unknown) => value === undefined || value === null || value === "";

export const OPERATOR_VARS = ["SPONSON_NOTIFY", "SPONSON_CLOSE_GRACE_SECONDS", "SPONSON_CLOSE_MAX_RESENDS"];

export function operatorVarProblems(vars: Vars, secretsKnown: boolean): ConfigProblem[] {
  return [...notifyProblems(vars, secretsKnown), ...closeGraceProblems(vars)];
}

function notifyProblems(vars: Vars, secretsKnown: boolean): ConfigProblem[] {
  const raw = vars.SPONSON_NOTIFY;
  if (unset(raw)) return [];
  let json: unknown = raw;
  if (typeof raw === "string") {
    try {
      json = JSON.parse(raw);
    } catch {
      return [{ path: "SPONSON_NOTIFY", message: "is not JSON" }];
    }
  }
  const parsed = notifyConfigSchema.safeParse(json);
  if (!parsed.success)
    return parsed.error.issues.map((issue) => ({
      path: ["SPONSON_NOTIFY", ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
  if (!secretsKnown) return [];
  const named: [string, string | undefined][] = [
    ["SPONSON_NOTIFY.slack.urlSecret", parsed.data.slack?.urlSecret],
    ["SPONSON_NOTIFY.webhook.secret", parsed.data.webhook?.secret],
  ];
  return named.flatMap(([path, secret]) =>
    secret !== undefined && (typeof vars[secret] !== "string" || vars[secret] === "")
      ? [{ path, message: `names the Worker secret ${secret}, which is not set` }]
      : [],
  );
}

/** Each var alone, so both are reported when both are wrong (the sweep's reader stops at the first). */
function closeGraceProblems(vars: Vars): ConfigProblem[] {
  return ["SPONSON_CLOSE_GRACE_SECONDS", "SPONSON_CLOSE_MAX_RESENDS"].flatMap((name) => {
    try {
      closeGraceFromEnv({ [name]: vars[name] });
      return [];
    } catch (err) {
      // The reader's message names the var; a number of seconds or a count is no secret.
      return [
        { path: name, message: err instanceof Error ? err.message.replace(`${name} `, "") : "is not valid" },
      ];
    }
  });
}
