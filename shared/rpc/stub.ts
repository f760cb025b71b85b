/**
 * Typed RPC stubs. A binding is declared in shared/env.ts as a namespace of `Branded<Api>`, where
 * `Api` is the object's RPC surface declared here in shared/rpc/ and each Durable Object class
 * `implements` it: a class that drifts from its interface fails typecheck, and the Worker calls the
 * object through the same interface. The one cast below exists because the runtime's RPC typing
 * flattens the declared result unions; the generic ties the interface to the binding's own.
 */
export type Branded<Api> = Api & Rpc.DurableObjectBranded;

export function rpcStub<Api>(ns: DurableObjectNamespace<Branded<Api>>, name: string): Api {
  return ns.get(ns.idFromName(name)) as unknown as Api;
}
