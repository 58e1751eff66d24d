import { Context, type Duration, Effect, Layer, Ref } from "effect"
import { DeliveryNotRecorded } from "./Errors.ts"
import { type PushNotification, type PushResult, success, type TokenType } from "./Model.ts"
import { type PushDeliveryAttempt, PushDeliveryLog } from "./PushDeliveryLog.ts"
import { type PushGateway, PushGateways } from "./PushGateways.ts"

/** The in-memory delivery log, and what tests read back from it. */
export class PushDeliveryLogMemory extends Context.Service<
  PushDeliveryLogMemory,
  {
    readonly attempts: Effect.Effect<ReadonlyArray<PushDeliveryAttempt>>
    /** Makes every following `record` fail, as a lost database would. */
    readonly breakDown: Effect.Effect<void>
  }
>()("@payments-gaming/domain/push/testing/PushDeliveryLogMemory") {}

/** The delivery log in memory, with `PushDeliveryLogMemory` to read it back. */
export const layerMemoryDeliveryLog: Layer.Layer<PushDeliveryLog | PushDeliveryLogMemory> = Layer.effectContext(
  Effect.gen(function* () {
    const attempts = yield* Ref.make<ReadonlyArray<PushDeliveryAttempt>>([])
    const broken = yield* Ref.make(false)
    const record = (attempt: PushDeliveryAttempt) =>
      Effect.flatMap(Ref.get(broken), (isBroken) =>
        isBroken
          ? Effect.fail(new DeliveryNotRecorded({ cause: new Error("delivery log is down") }))
          : Ref.update(attempts, (all) => [...all, attempt])
      )
    return Context.make(PushDeliveryLog, PushDeliveryLog.of({ record })).pipe(
      Context.add(PushDeliveryLogMemory, { attempts: Ref.get(attempts), breakDown: Ref.set(broken, true) })
    )
  })
)

export interface FakeSend {
  readonly tokenType: TokenType
  readonly token: string
  readonly notification: PushNotification
}

/** A scripted answer: the result a fake gateway gives, after an optional (TestClock) delay. */
export interface FakeAnswer {
  readonly result: PushResult
  readonly delay?: Duration.Input
}

/**
 * Fake gateways for both token types. Each answers the next scripted answer for its type, or
 * succeeds with `fake-<n>` when none is queued, and remembers every send.
 */
export class PushGatewaysFake extends Context.Service<
  PushGatewaysFake,
  {
    readonly sent: Effect.Effect<ReadonlyArray<FakeSend>>
    readonly answerNext: (tokenType: TokenType, answer: FakeAnswer) => Effect.Effect<void>
  }
>()("@payments-gaming/domain/push/testing/PushGatewaysFake") {}

/** Both gateways faked in memory, with `PushGatewaysFake` to script and read them. */
export const layerMemoryGateways: Layer.Layer<PushGateways | PushGatewaysFake> = Layer.effectContext(
  Effect.gen(function* () {
    const sent = yield* Ref.make<ReadonlyArray<FakeSend>>([])
    const queued = yield* Ref.make<ReadonlyArray<{ readonly tokenType: TokenType; readonly answer: FakeAnswer }>>([])

    const nextAnswer = (tokenType: TokenType) =>
      Ref.modify(queued, (all) => {
        const index = all.findIndex((entry) => entry.tokenType === tokenType)
        return index === -1 ? [undefined, all] : [all[index]?.answer, all.filter((_, i) => i !== index)]
      })

    const gateway = (tokenType: TokenType, name: string): PushGateway => ({
      name,
      configured: true,
      send: (token, notification) =>
        Effect.gen(function* () {
          const count = (yield* Ref.updateAndGet(sent, (all) => [...all, { tokenType, token, notification }])).length
          const answer = yield* nextAnswer(tokenType)
          if (answer === undefined) return success(`fake-${count}`)
          if (answer.delay !== undefined) yield* Effect.sleep(answer.delay)
          return answer.result
        })
    })

    return Context.make(
      PushGateways,
      PushGateways.of({ FCM: gateway("FCM", "fcm"), APNS: gateway("APNS", "apns") })
    ).pipe(
      Context.add(PushGatewaysFake, {
        sent: Ref.get(sent),
        answerNext: (tokenType, answer) => Ref.update(queued, (all) => [...all, { tokenType, answer }])
      })
    )
  })
)

/** The delivery log and both gateways in memory. */
export const layerMemory: Layer.Layer<PushDeliveryLog | PushDeliveryLogMemory | PushGateways | PushGatewaysFake> =
  Layer.merge(layerMemoryDeliveryLog, layerMemoryGateways)
