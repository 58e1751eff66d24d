import { failure, type PushResult } from "@payments-gaming/domain/push"
import { Duration, Effect } from "effect"

/**
 * A gateway's send bounded by `timeout`: a provider that has not answered by then is a TIMEOUT
 * failure naming it (retryable, as push results say). Traced as `span`.
 */
export const answerWithin =
  (timeout: Duration.Duration, provider: string, span: string) =>
  <E, R>(send: Effect.Effect<PushResult, E, R>) =>
    send.pipe(
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () =>
          Effect.succeed(failure("TIMEOUT", `${provider} did not answer within ${Duration.format(timeout)}`))
      }),
      Effect.withSpan(span)
    )
