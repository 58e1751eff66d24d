import { Seal, SealCursor, SealPage } from "@payments-gaming/domain/ledger"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"
import { PageQuery } from "../Paging.ts"

const chain =
  "Each seal's `hash` is SHA-256(previousHash ‖ encode(t₁) ‖ … ‖ encode(tₙ)) over the transactions it covers " +
  "(docs/ledger-seals.md). Publish the latest `hash` elsewhere: `ledger verify --head <hash>` later proves the " +
  "history up to it was not rewritten."

/** The sealed ledger's chain head and seals, for a monitor to publish the head elsewhere (CONTRACT §8). */
export class LedgerSealsApi extends HttpApiGroup.make("ledgerSeals")
  .add(
    HttpApiEndpoint.get("list", "/v1/admin/ledger/seals", {
      query: { limit: PageQuery.limit, cursor: Schema.optionalKey(SealCursor) },
      success: Envelope(SealPage),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "The seals of the ledger's hash chain, newest first",
        description: `${chain} Pass the page's \`nextCursor\` back as \`cursor\` for the next page; it is null on the last page.`
      })
    ),
    HttpApiEndpoint.get("latest", "/v1/admin/ledger/seals/latest", {
      success: Envelope(Seal),
      error: NotFound
    }).annotateMerge(
      OpenApi.annotations({
        summary: "The head of the chain: the latest seal (404 while nothing is sealed)",
        description: chain
      })
    )
  )
  .middleware(RequireAdmin)
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Sealed ledger (administration)",
      description:
        "The ledger's SHA-256 hash chain: every committed transaction sealed within LEDGER_SEAL_INTERVAL, for a " +
        "monitor to publish the head and an auditor to check it (role admin)"
    })
  ) {}
