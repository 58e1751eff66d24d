import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import foundation from "./0001_foundation.ts"
import ledgerBanking from "./0002_ledger_banking.ts"
import cards from "./0003_cards.ts"
import trivia from "./0004_trivia.ts"
import pushDeliveries from "./0005_push_deliveries.ts"
import wheel from "./0006_wheel.ts"
import ledgerSystemBalances from "./0007_ledger_system_balances.ts"
import ledgerGuards from "./0008_ledger_guards.ts"
import cardDigits from "./0009_card_digits.ts"
import webhookConflicts from "./0010_webhook_conflicts.ts"
import webhookEventListing from "./0011_webhook_event_listing.ts"
import userDevices from "./0012_user_devices.ts"
import ledgerStatement from "./0013_ledger_statement.ts"
import wheelClientSeeds from "./0014_wheel_client_seeds.ts"
import notificationOutbox from "./0015_notification_outbox.ts"
import notificationResends from "./0016_notification_resends.ts"
import ledgerSeals from "./0017_ledger_seals.ts"
import webhookConflictKey from "./0018_webhook_conflict_key.ts"
import deviceTokenErasure from "./0019_device_token_erasure.ts"
import reconciliations from "./0020_reconciliations.ts"
import cheapFormatChecks from "./0021_cheap_format_checks.ts"
import lockFreeReferences from "./0022_lock_free_references.ts"
import ledgerChecksOnce from "./0023_ledger_checks_once.ts"

/**
 * Every migration, keyed `<id>_<name>`. Statically imported (not read from a folder) so the set is
 * checked by the compiler and bundled with the code. Ids are never reused or reordered.
 */
export const migrations: Record<string, Effect.Effect<unknown, unknown, SqlClient.SqlClient>> = {
  "0001_foundation": foundation,
  "0002_ledger_banking": ledgerBanking,
  "0003_cards": cards,
  "0004_trivia": trivia,
  "0005_push_deliveries": pushDeliveries,
  "0006_wheel": wheel,
  "0007_ledger_system_balances": ledgerSystemBalances,
  "0008_ledger_guards": ledgerGuards,
  "0009_card_digits": cardDigits,
  "0010_webhook_conflicts": webhookConflicts,
  "0011_webhook_event_listing": webhookEventListing,
  "0012_user_devices": userDevices,
  "0013_ledger_statement": ledgerStatement,
  "0014_wheel_client_seeds": wheelClientSeeds,
  "0015_notification_outbox": notificationOutbox,
  "0016_notification_resends": notificationResends,
  "0017_ledger_seals": ledgerSeals,
  "0018_webhook_conflict_key": webhookConflictKey,
  "0019_device_token_erasure": deviceTokenErasure,
  "0020_reconciliations": reconciliations,
  "0021_cheap_format_checks": cheapFormatChecks,
  "0022_lock_free_references": lockFreeReferences,
  "0023_ledger_checks_once": ledgerChecksOnce
}
