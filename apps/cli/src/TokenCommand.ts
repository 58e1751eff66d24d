import { jwtSettings } from "@payments-gaming/adapters/auth/JwtConfig"
import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import { Console, Duration, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { UsageError } from "./Runtime.ts"
import { printText } from "./TerminalText.ts"

const TTL = /^(\d+)\s*(s|m|h|d)$/
/** The lifetime of a token minted without `--ttl`, shortened when AUTH_MAX_TOKEN_TTL is shorter. */
const DEFAULT_TTL_SECONDS = 3600
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const

/** Parses `30s`, `15m`, `1h`, `7d`; a bare number is seconds. */
export const parseTtl = (text: string): Option.Option<number> => {
  if (/^\d+$/.test(text)) return Number(text) > 0 ? Option.some(Number(text)) : Option.none()
  const match = TTL.exec(text.trim())
  if (match === null) return Option.none()
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS]
  return seconds > 0 ? Option.some(seconds) : Option.none()
}

const mint = Command.make(
  "mint",
  {
    sub: Flag.String("sub").pipe(Flag.withDescription("User id (the token's subject), 1–128 characters")),
    role: Flag.String("role").pipe(Flag.atLeast(0), Flag.withDescription("A role to grant (repeatable), e.g. admin")),
    ttl: Flag.String("ttl").pipe(
      Flag.optional,
      Flag.withDescription("Lifetime: 30s, 15m, 1h, 7d (default 1h; at most AUTH_MAX_TOKEN_TTL, default 24h)")
    ),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))
  },
  ({ sub, role, ttl, json }) =>
    Effect.gen(function* () {
      if (sub.length < 1 || sub.length > 128) {
        return yield* Effect.fail(new UsageError({ message: "--sub must be 1 to 128 characters" }))
      }
      const requested = yield* Option.match(ttl, {
        onNone: () => Effect.succeed(Option.none<number>()),
        onSome: (text) =>
          Option.match(parseTtl(text), {
            onNone: () =>
              Effect.fail(new UsageError({ message: `--ttl ${text} is not a duration like 30s, 15m, 1h or 7d` })),
            onSome: (seconds) => Effect.succeed(Option.some(seconds))
          })
      })
      const settings = yield* jwtSettings
      // The service refuses a token that lives longer than AUTH_MAX_TOKEN_TTL: never mint one.
      const maxSeconds = Math.floor(Duration.toSeconds(settings.maxTokenTtl))
      const ttlSeconds = Option.getOrElse(requested, () => Math.min(DEFAULT_TTL_SECONDS, maxSeconds))
      if (ttlSeconds > maxSeconds) {
        return yield* Effect.fail(
          new UsageError({
            message: `--ttl ${Option.getOrElse(ttl, () => "")} is longer than AUTH_MAX_TOKEN_TTL (${Duration.format(settings.maxTokenTtl)}); the service would refuse the token`
          })
        )
      }
      // jose is loaded only here: the CLI's other commands and --help never pay for it.
      const { mint: mintToken } = yield* Effect.promise(() => import("@payments-gaming/adapters/auth/JwtIssuer"))
      const token = yield* mintToken(settings, { sub, roles: role, ttlSeconds })
      if (json) {
        const expiresAt = new Date(Date.now() + Duration.toMillis(Duration.seconds(ttlSeconds))).toISOString()
        yield* Console.log(JSON.stringify({ token, sub, roles: role, expiresAt }))
      } else {
        yield* printText(token)
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription("Mint an HS256 bearer token with the service's AUTH_JWT_SECRET"),
  Command.withExamples([
    {
      command: "payments-gaming token mint --sub user-1",
      description: "A user token valid for an hour (or AUTH_MAX_TOKEN_TTL if shorter)"
    },
    { command: "payments-gaming token mint --sub ops --role admin --ttl 15m", description: "An admin token" }
  ])
)

export const token = Command.make("token").pipe(
  Command.withDescription("Bearer tokens for local development and operations"),
  Command.withSubcommands([mint])
)
