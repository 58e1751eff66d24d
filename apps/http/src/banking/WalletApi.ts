import {
  AccountNumber,
  LinkVirtualAccountRequest,
  RecordTransferRequest,
  TransferView,
  VirtualAccountView,
  WalletView
} from "@payments-gaming/domain/banking"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, Conflict } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"

export class WalletApi extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("wallet", "/v1/wallet", { success: Envelope(WalletView) }).annotateMerge(
      OpenApi.annotations({ summary: "The caller's coin balance and cash balances (decimal strings)" })
    )
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Wallet" })) {}

export class BankingAdminApi extends HttpApiGroup.make("bankingAdmin")
  .add(
    HttpApiEndpoint.put("linkVirtualAccount", "/v1/admin/virtual-accounts/:accountNumber", {
      params: { accountNumber: AccountNumber },
      payload: LinkVirtualAccountRequest,
      success: [Envelope(VirtualAccountView), Envelope(VirtualAccountView).pipe(HttpApiSchema.status(201))],
      error: Conflict
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Link a virtual account to a user (201 new, 200 same link again, 409 another user or currency)"
      })
    ),
    HttpApiEndpoint.post("recordTransfer", "/v1/admin/transfers", {
      payload: RecordTransferRequest,
      success: [Envelope(TransferView).pipe(HttpApiSchema.status(201)), Envelope(TransferView)],
      error: [BadRequest, Conflict]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Record an outbound transfer and hold its amount until the provider settles or fails it"
      })
    )
  )
  .middleware(RequireAdmin)
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Banking administration" })) {}
