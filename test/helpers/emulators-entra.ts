/** Tenants (login.microsoftonline.com) and applications (graph.microsoft.com) of the Entra emulators. */
import {
  type EntraAppRecord,
  type EntraTenant,
  entraKeys,
  type GraphApplication,
  graphApplication,
} from "../../dev/emulators/entra";
import { emulatorStub } from "./emulators";

export const ENTRA_LOGIN_HOST = "login.microsoftonline.com";
export const GRAPH_HOST = "graph.microsoft.com";

export const guid = () => crypto.randomUUID();

export async function seedEntraTenant(names: string[], tenant: EntraTenant): Promise<void> {
  await emulatorStub(ENTRA_LOGIN_HOST).seed(
    Object.fromEntries(names.map((n) => [entraKeys.tenant(n), tenant])),
  );
}

export async function seedGraphApp(
  tenantId: string,
  app: GraphApplication,
  owners: string[] = [],
): Promise<void> {
  const record: EntraAppRecord = { owners, versions: [{ visibleAtMs: 0, app }] };
  await emulatorStub(GRAPH_HOST).seed({ [entraKeys.app(tenantId, app.id)]: record });
}

/** The application as Graph holds it now (its newest version, visible to reads or not). */
export async function graphApp(tenantId: string, id: string): Promise<GraphApplication | undefined> {
  const key = entraKeys.app(tenantId, id);
  const record = (await emulatorStub(GRAPH_HOST).dump(key))[key] as EntraAppRecord | undefined;
  return record?.versions.at(-1)?.app;
}

/** How long a Graph write stays invisible to reads (0: reads see every write at once). */
export async function setGraphLag(ms: number): Promise<void> {
  await emulatorStub(GRAPH_HOST).seed({ [entraKeys.lag]: ms });
}

export { graphApplication };
