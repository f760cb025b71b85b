/**
 * A platform placeholder's value (docs/design.md, "The platform door"): only in a platform
 * connection's plan, and like a var only in the line's item param, so what the platform says of a
 * deployment is what is written, never where.
 */
import type { PlatformPlaceholderName, PlatformValues } from "../../../shared/placeholders";

export function platformValue(
  whole: string,
  name: PlatformPlaceholderName,
  at: { inItemParam: boolean; itemParam: string; platform: PlatformValues | undefined },
): { value: string } | { message: string } {
  if (at.platform === undefined)
    return { message: `${whole} has a value only in a platform connection's plan (SPONSON_PLATFORMS)` };
  if (!at.inItemParam)
    return {
      message: `${whole}: platform values fill only the line's item param (${at.itemParam}), never a param naming the provider object`,
    };
  const value = at.platform[name];
  return value === undefined ? { message: `${whole} has no value for this deployment` } : { value };
}
