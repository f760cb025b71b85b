// A `pull_request` delivery as GitHub sends it, built on a real payload: the first example of the
// action in @octokit/webhooks-examples (a devDependency, so this works in a checkout, not from the
// published CLI). Only what a real event of this pull request would carry differently is changed:
// the number, `updated_at` (the scope's revision), `state` / `closed_at`, and the repository when
// another is asked for. Signed like GitHub: `X-Hub-Signature-256` = HMAC-SHA256 over the exact
// bytes sent, computed by GitHub's own @octokit/webhooks-methods.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { sign } from "@octokit/webhooks-methods";

export const ACTIONS = ["closed", "reopened"];

let examples;
function pullRequestExample(action) {
  // 4 MB of JSON: read once, and only when an event is built.
  examples ??= createRequire(import.meta.url)("@octokit/webhooks-examples").find(
    (e) => e.name === "pull_request",
  ).examples;
  const example = examples.find((e) => e.action === action);
  if (!example) throw new Error(`@octokit/webhooks-examples has no pull_request ${action} example`);
  return structuredClone(example);
}

/** `updated_at` as GitHub writes it: UTC, whole seconds. */
export function githubTimestamp(date) {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * @param {{ action: string, pr: number, repository?: { name: string, id: number }, updatedAt?: string }} event
 * @returns the payload (parsed) and the exact body to send and sign
 */
export function pullRequestPayload({ action, pr, repository, updatedAt = githubTimestamp(new Date()) }) {
  const payload = pullRequestExample(action);
  payload.number = pr;
  payload.pull_request.number = pr;
  payload.pull_request.updated_at = updatedAt;
  payload.pull_request.state = action === "closed" ? "closed" : "open";
  payload.pull_request.closed_at = action === "closed" ? updatedAt : null;
  if (repository && repository.name.toLowerCase() !== payload.repository.full_name.toLowerCase()) {
    const [owner, name] = repository.name.split("/");
    payload.repository.id = repository.id;
    payload.repository.full_name = repository.name;
    payload.repository.name = name;
    payload.repository.owner.login = owner;
  } else if (repository) {
    payload.repository.id = repository.id;
  }
  return { payload, body: JSON.stringify(payload) };
}

/** The headers GitHub sends with a delivery of `body`. */
export async function deliveryHeaders(secret, body, delivery = randomUUID()) {
  return {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/sponson-local",
    "x-github-event": "pull_request",
    "x-github-delivery": delivery,
    "x-hub-signature-256": await sign(secret, body),
  };
}
