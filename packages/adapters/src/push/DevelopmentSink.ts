import { randomUUID } from "node:crypto"
import { failure, type PushGateway, type PushNotification, success, type TokenType } from "@payments-gaming/domain/push"
import { Context, Effect, Layer, Ref } from "effect"

/** A push the sink kept instead of sending. */
export interface SunkPush {
  readonly tokenType: TokenType
  readonly token: string
  readonly notification: PushNotification
  readonly providerMessageId: string
}

export interface DevelopmentSinkOptions {
  /** In production the sink refuses: a push that silently goes nowhere would look delivered. */
  readonly production: boolean
  /** How many recent pushes it keeps; older ones are dropped. Default 100. */
  readonly capacity?: number
}

/**
 * Stands in for a provider without credentials. Outside production it keeps the push in memory
 * and succeeds with `local-<uuid>`; in production it answers PROVIDER_NOT_CONFIGURED.
 */
export class DevelopmentSink extends Context.Service<
  DevelopmentSink,
  {
    readonly gatewayFor: (tokenType: TokenType) => PushGateway
    /** The pushes kept so far, oldest first. */
    readonly received: Effect.Effect<ReadonlyArray<SunkPush>>
  }
>()("@payments-gaming/adapters/push/DevelopmentSink") {
  static readonly layer = (options: DevelopmentSinkOptions): Layer.Layer<DevelopmentSink> =>
    Layer.effect(
      DevelopmentSink,
      Effect.gen(function* () {
        const capacity = options.capacity ?? 100
        const received = yield* Ref.make<ReadonlyArray<SunkPush>>([])

        // Made once, not a generator per push (docs/architecture.md).
        const keep = Effect.fnUntraced(function* (
          tokenType: TokenType,
          token: Parameters<PushGateway["send"]>[0],
          notification: Parameters<PushGateway["send"]>[1]
        ) {
          const providerMessageId = `local-${randomUUID()}`
          yield* Ref.update(received, (all) =>
            [...all, { tokenType, token, notification, providerMessageId }].slice(-capacity)
          )
          yield* Effect.logInfo(`Development sink kept a ${tokenType} push`, { providerMessageId })
          return success(providerMessageId)
        })

        const gatewayFor = (tokenType: TokenType): PushGateway => ({
          name: "development-sink",
          configured: false,
          send: (token, notification) =>
            options.production
              ? Effect.succeed(failure("PROVIDER_NOT_CONFIGURED", `No ${tokenType} provider is configured`))
              : keep(tokenType, token, notification)
        })

        return DevelopmentSink.of({ gatewayFor, received: Ref.get(received) })
      })
    )
}
