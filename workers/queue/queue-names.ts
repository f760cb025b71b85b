/** Which queue is which, by the names this deployment configures. */

/** The defaults, as wrangler.toml names them. */
export const DESTROY_QUEUE_NAME = "sponson-destroys";
export const DEAD_LETTER_QUEUE_NAME = "sponson-destroys-dlq";
/** Notifications for operators (workers/notify/) and their own dead letters. */
export const NOTIFY_QUEUE_NAME = "sponson-notifications";
export const NOTIFY_DEAD_LETTER_QUEUE_NAME = "sponson-notifications-dlq";

/**
 * The queue names this deployment's wrangler.toml binds (docs/deploy.md, "Resources"):
 * SPONSON_DESTROY_QUEUE, SPONSON_DEAD_LETTER_QUEUE, SPONSON_NOTIFY_QUEUE and
 * SPONSON_NOTIFY_DEAD_LETTER_QUEUE, else the defaults.
 */
export function queueNames(env: object): {
  destroys: string;
  deadLetters: string;
  notifications: string;
  notificationDeadLetters: string;
} {
  const vars = env as Record<string, unknown>;
  const named = (name: string, fallback: string) => {
    const value = vars[name];
    return typeof value === "string" && value !== "" ? value : fallback;
  };
  return {
    destroys: named("SPONSON_DESTROY_QUEUE", DESTROY_QUEUE_NAME),
    deadLetters: named("SPONSON_DEAD_LETTER_QUEUE", DEAD_LETTER_QUEUE_NAME),
    notifications: named("SPONSON_NOTIFY_QUEUE", NOTIFY_QUEUE_NAME),
    notificationDeadLetters: named("SPONSON_NOTIFY_DEAD_LETTER_QUEUE", NOTIFY_DEAD_LETTER_QUEUE_NAME),
  };
}
