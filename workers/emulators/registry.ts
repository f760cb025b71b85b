/** Every provider emulator, found by the host a request is addressed to. */
import type { ProviderEmulatorModule } from "./emulator";

export const EMULATORS: readonly ProviderEmulatorModule[] = [];

export function emulatorFor(host: string): ProviderEmulatorModule | undefined {
  return EMULATORS.find((m) => m.matches(host));
}
