import { UserId } from "@payments-gaming/domain/auth"
import {
  AccountNumber,
  LinkVirtualAccountRequest,
  RecordTransferRequest,
  TransferView,
  VirtualAccountView,
  WalletView
} from "@payments-gaming/domain/banking"
import { Instant, StatementCursor, StatementPage } from "@payments-gaming/domain/ledger"
import { Unit } from "@payments-gaming/domain/money"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, Conflict } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"
import { PageQuery } from "../Paging.ts"

/** The statement's query: a keyset page (`limit`, the opaque `cursor`, never an offset) and its filters. */
export const StatementQuery = {
  limit: PageQuery.limit,
  cursor: Schema.optionalKey(StatementCursor),
  currency: Schema.optionalKey(Unit),
  from: Schema.optionalKey(Instant),
  to: Schema.optionalKey(Instant)
}

/**
 * A user id in a path: any `UserId` but one with a NUL, which no user can have (PostgreSQL refuses
 * it in text) and which would otherwise reach the database (found by the endpoint fuzzer).
 */
const PathUserId = UserId.check(
  Schema.makeFilter((id: string) => !id.includes("\u0000"), { message: "must not contain a NUL character" })
)

const statementDescription =
  "Postings newest first (by posting id), each with the balance just after it in its currency. `limit` 1 to 200 " +
  "(default 50); pass the page's `nextCursor` back as `cursor` for the next page (null on the last page): a " +
  "position, not an offset, so postings made while paging do not shift pages. `currency` an ISO 4217 code or COIN; " +
  "`from` (inclusive) and `to` (exclusive) ISO 8601 instants with an offset, `from` before `to`. A bad cursor, " +
  "filter or limit is a 400 listing the problems."

export class WalletApi extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("wallet", "/v1/wallet", { success: Envelope(WalletView) }).annotateMerge(
      OpenApi.annotations({
        summary: "The caller's coin balance and cash balances (decimal strings)",
        description:
          "`coinBalance` in whole coins; one `balances` entry per currency the caller holds, `available` a decimal string."
      })
    ),
    HttpApiEndpoint.get("statement", "/v1/wallet/transactions", {
      query: StatementQuery,
      success: Envelope(StatementPage),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "The caller's wallet statement: deposits, prizes and transfers with the balance after each",
        description: statementDescription
      })
    )
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Wallet", description: "The caller's balances and statement" })) {}

export class BankingAdminApi extends HttpApiGroup.make("bankingAdmin")
  .add(
    HttpApiEndpoint.put("linkVirtualAccount", "/v1/admin/virtual-accounts/:accountNumber", {
      params: { accountNumber: AccountNumber },
      payload: LinkVirtualAccountRequest,
      success: [Envelope(VirtualAccountView), Envelope(VirtualAccountView).pipe(HttpApiSchema.status(201))],
      error: Conflict
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Link a virtual account to a user (201 new, 200 same link again, 409 another user or currency)",
        description:
          "Credits to the account number are then posted to the user's wallet in the currency; a webhook event " +
          "stored as unmatched before the link can be replayed after it."
      })
    ),
    HttpApiEndpoint.post("recordTransfer", "/v1/admin/transfers", {
      payload: RecordTransferRequest,
      success: [Envelope(TransferView).pipe(HttpApiSchema.status(201)), Envelope(TransferView)],
      error: [BadRequest, Conflict]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Record an outbound transfer and hold its amount until the provider settles or fails it",
        description:
          "201 recorded (the amount is held), 200 the same details again, 409 other details under the reference or " +
          "funds too short. `amount` a JSON number or decimal string."
      })
    ),
    HttpApiEndpoint.get("userStatement", "/v1/admin/users/:userId/transactions", {
      params: { userId: PathUserId },
      query: StatementQuery,
      success: Envelope(StatementPage),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "A user's wallet statement, as GET /v1/wallet/transactions shows it to that user",
        description: statementDescription
      })
    )
  )
  .middleware(RequireAdmin)
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Banking administration",
      description: "Virtual accounts, outbound transfers and users' statements (role admin)"
    })
  ) {}
