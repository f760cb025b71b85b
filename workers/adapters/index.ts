/** Every provider adapter the service knows. Adding a provider is adding it here. */
import type { ProviderAdapter } from "../engine/op-spec";

export const ADAPTERS: readonly ProviderAdapter<never>[] = [];
