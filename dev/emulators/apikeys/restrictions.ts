/**
 * What the API checks in a Key's `restrictions` (google.api.apikeys.v2 resources.proto): the four
 * client restrictions are a oneof (one kind per key), each a list of strings (Android's of
 * `{sha1Fingerprint, packageName}`), and `apiTargets` a list of `{service, methods?}`. Fields the
 * proto does not have are kept as sent (Google refuses unknown names: not modelled). The messages
 * are inferred, not captured.
 */

const CLIENT_KINDS = [
  "browserKeyRestrictions",
  "serverKeyRestrictions",
  "androidKeyRestrictions",
  "iosKeyRestrictions",
] as const;

const LISTS: Record<string, string> = {
  browserKeyRestrictions: "allowedReferrers",
  serverKeyRestrictions: "allowedIps",
  iosKeyRestrictions: "allowedBundleIds",
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isStringList = (v: unknown) => Array.isArray(v) && v.every((e) => typeof e === "string");

/** Why `restrictions` is refused (400 INVALID_ARGUMENT), or null when the API takes it. */
export function restrictionsProblem(restrictions: unknown): string | null {
  if (restrictions === undefined || restrictions === null) return null;
  if (!isObject(restrictions)) return "Invalid value at 'key.restrictions'";
  const kinds = CLIENT_KINDS.filter((k) => restrictions[k] !== undefined && restrictions[k] !== null);
  if (kinds.length > 1) {
    return `Only one type of client restrictions may be set on a key; got ${kinds.join(", ")}.`;
  }
  for (const kind of kinds) {
    const value = restrictions[kind];
    if (!isObject(value)) return `Invalid value at 'key.restrictions.${kind}'`;
    const list = LISTS[kind];
    if (list && value[list] !== undefined && !isStringList(value[list])) {
      return `Invalid value at 'key.restrictions.${kind}.${list}'`;
    }
  }
  const targets = restrictions.apiTargets;
  if (targets !== undefined && targets !== null) {
    if (!Array.isArray(targets)) return "Invalid value at 'key.restrictions.api_targets'";
    const bad = targets.findIndex(
      (t) =>
        !isObject(t) ||
        typeof t.service !== "string" ||
        (t.methods !== undefined && t.methods !== null && !isStringList(t.methods)),
    );
    if (bad >= 0) return `Invalid value at 'key.restrictions.api_targets[${bad}]'`;
  }
  return null;
}
