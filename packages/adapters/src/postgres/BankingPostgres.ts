import { BankingService, WebhookEventsService } from "@payments-gaming/domain/banking"
import { Layer } from "effect"
import * as BankingDeadLetters from "./BankingDeadLetters.ts"
import * as LedgerPostgres from "./LedgerPostgres.ts"
import * as LedgerUnitOfWork from "./LedgerUnitOfWork.ts"
import * as TransfersPostgres from "./TransfersPostgres.ts"
import * as VirtualAccountsPostgres from "./VirtualAccountsPostgres.ts"
import * as WebhookInboxPostgres from "./WebhookInboxPostgres.ts"

/** The ledger and its unit of work on the ambient `SqlClient`: what the wheel needs too. */
export const layerLedger = Layer.mergeAll(LedgerPostgres.layer, LedgerUnitOfWork.layer)

/** Every ledger and banking port on the ambient `SqlClient`. */
export const layerRepositories = Layer.mergeAll(
  layerLedger,
  WebhookInboxPostgres.layer,
  BankingDeadLetters.layer,
  VirtualAccountsPostgres.layer,
  TransfersPostgres.layer
)

/**
 * `BankingService` and the operators' `WebhookEventsService` on PostgreSQL, with their ports exposed
 * (the wheel shares the ledger). Needs `SqlClient`.
 */
export const layer = Layer.merge(BankingService.layer, WebhookEventsService.layer).pipe(
  Layer.provideMerge(layerRepositories)
)
