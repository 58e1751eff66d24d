import { Card, CardId, NewCard } from "@payments-gaming/domain/cards"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { PageQuery } from "../Paging.ts"

export class CardsApi extends HttpApiGroup.make("cards")
  .add(
    HttpApiEndpoint.post("add", "/", {
      payload: NewCard,
      // 200, as the spec's example (CONTRACT §3).
      success: Envelope(Card),
      error: [BadRequest, Conflict]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Register a payment card",
        description:
          "Validated like a card network would (digits, length, Luhn, known network, expiry through the last day " +
          "of the month and at most 20 years ahead, CVV length by brand). Neither the full number nor the CVV is " +
          "ever stored or logged. 409 for the same number twice or an eleventh active card."
      })
    ),
    HttpApiEndpoint.get("list", "/", { query: PageQuery, success: Envelope(Schema.Array(Card)) }).annotateMerge(
      OpenApi.annotations({
        summary: "The caller's cards",
        description: "Masked as stored; `limit` 1 to 200 (default 50), `offset` from 0."
      })
    ),
    HttpApiEndpoint.delete("remove", "/:cardId", {
      params: { cardId: CardId },
      success: Envelope(Schema.Null),
      error: NotFound
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Remove one of the caller's cards",
        description: "`data` is null; 404 for an unknown card or another user's, 400 for an id that is not a UUID."
      })
    )
  )
  .middleware(Authentication)
  .prefix("/v1/user/cards")
  .annotateMerge(OpenApi.annotations({ title: "Cards", description: "The caller's payment cards" })) {}
