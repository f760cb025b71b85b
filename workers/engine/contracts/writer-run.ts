/**
 * What a group write needs of its run and of the run's receipt session: the run layer implements
 * these (run/run.ts `Run`, run/receipt-session.ts `ReceiptSession`), so write/ and the layers below
 * it depend on the contract and never on run/ itself (test/repo/layering.test.ts).
 */
import type { ErrorInfo } from "../../../shared/errors";
import type { RunOrigin } from "../../../shared/schemas/provenance";
import type { Intent, LedgerEntry, Receipt } from "../../../shared/schemas/receipt";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import type { Waiting } from "../../../shared/schemas/run";
import type { ItemRef } from "../plan/item";

/** The run a group write is made for: who it is, where its warnings and waits are told. */
export interface WriterRun {
  readonly id: string;
  readonly repository: RepositoryRef;
  readonly environment: string;
  readonly scope: string;
  readonly origin: RunOrigin;
  warn(message: string): void;
  waiting(report: Waiting): void;
  /** Another run's write carried some of this run's changes (write combining). */
  combinedBy(runId: string): void;
  errorOf(err: unknown, lines?: readonly string[]): ErrorInfo;
}

/** The run's receipt, read and changed as the writes go (saved before each provider write). */
export interface WriterSession {
  readonly receipt: Readonly<Receipt>;
  ledgerEntry(ref: ItemRef): LedgerEntry | undefined;
  addIntent(intent: Intent): void;
  dropIntent(intent: Intent): void;
  markRefused(runId: string, ref: ItemRef): void;
  resolveIntents(runId: string, ref: ItemRef): void;
  addLedger(entry: LedgerEntry): void;
  dropLedger(ref: ItemRef): void;
  save(): Promise<void>;
}
