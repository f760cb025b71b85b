/** A run's lease options: their home is write/lease-settings.ts (write/ never imports run/). */
export { runLeaseOptions } from "../write/lease-settings";
