import { Api } from "@payments-gaming/api/Api"
import { conflict, notFound } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { pageOf } from "@payments-gaming/api/Paging"
import { SpinData, WheelData } from "@payments-gaming/api/wheel/WheelApi"
import { SpinAndWinService, type WheelView } from "@payments-gaming/domain/wheel"
import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Respond.ts"

/**
 * A refusal the player can act on (spin again next round, or now: a spin whose round closed before
 * its write was recorded nowhere), answered 409 with its message.
 */
const asConflict = (error: { readonly message: string }) => Effect.fail(conflict(error.message))

const encodeWheel = Schema.encodeSync(WheelData)

// A wheel's public segments are one array for as long as the wheel is cached (Wheel.publicSegments),
// so their encoding is kept with it instead of walking eight segments' schema on every view. The
// balance and countdown are encoded per request, with an empty list standing in for the segments.
const encodedSegments = new WeakMap<WheelView["segments"], ReturnType<typeof encodeWheel>["segments"]>()
const encodeView = (view: WheelView) => {
  let segments = encodedSegments.get(view.segments)
  if (segments === undefined) {
    segments = encodeWheel(view).segments
    encodedSegments.set(view.segments, segments)
  }
  return { ...encodeWheel({ ...view, segments: [] }), segments }
}
const encodeSpin = Schema.encodeSync(SpinData)

export const WheelHandlers = HttpApiBuilder.group(Api, "wheel", (handlers) =>
  Effect.gen(function* () {
    const wheel = yield* SpinAndWinService
    return handlers
      .handle(
        "view",
        Effect.fnUntraced(function* () {
          const user = yield* CurrentUser
          const view = yield* wheel.view(user.userId)
          const body = yield* ok("Spin and win segments fetched successfully", encodeView(view))
          // The spec fixes `data`; the round and its commitment travel beside it.
          return HttpServerResponse.jsonUnsafe(body, {
            headers: { "x-spin-round": view.round, "x-round-commitment": view.commitment }
          })
        })
      )
      .handle(
        "spin",
        Effect.fnUntraced(function* ({ headers }) {
          const user = yield* CurrentUser
          const outcome = yield* wheel
            .spin(user.userId, headers["idempotency-key"])
            .pipe(Effect.catchTags({ AlreadySpun: asConflict, SpinContended: asConflict, RoundClosed: asConflict }))
          const body = yield* ok(outcome.replayed ? "Spin already made" : "Spin completed", encodeSpin(outcome))
          return HttpServerResponse.jsonUnsafe(body, {
            headers: {
              "x-spin-id": outcome.spinId,
              "x-spin-round": outcome.round,
              "x-round-commitment": outcome.commitment
            }
          })
        })
      )
      .handle(
        "clientSeed",
        Effect.fnUntraced(function* () {
          const user = yield* CurrentUser
          const state = yield* wheel.clientSeed(user.userId)
          return yield* ok("Client seed fetched successfully", state)
        })
      )
      .handle(
        "setClientSeed",
        Effect.fnUntraced(function* ({ payload }) {
          const user = yield* CurrentUser
          const state = yield* wheel.setClientSeed(user.userId, payload.clientSeed)
          return yield* ok("Client seed set; it applies from your next spin", state)
        })
      )
      .handle(
        "round",
        Effect.fnUntraced(function* ({ params, query }) {
          const user = yield* CurrentUser
          // Whose spins the caller sees is the domain's rule (RoundViewer); this only says who calls.
          const viewer = { userId: user.userId, isAdmin: user.isAdmin }
          const audit = yield* wheel.round(params.round, viewer, { page: pageOf(query) }).pipe(
            Effect.catchTags({
              RoundNotFound: (error) => Effect.fail(notFound(error.message)),
              RoundNotFinished: (error) => Effect.fail(conflict(error.message))
            })
          )
          return yield* ok("Round revealed", audit)
        })
      )
  })
)
