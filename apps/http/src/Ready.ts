import { resolve } from "node:path"
import { isProduction } from "@payments-gaming/adapters/config/NodeEnv"
import { HeldDataDirLock } from "@payments-gaming/adapters/postgres/DataDirLock"
import { Config, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"

/**
 * Once the server listens: records its URL in the data directory's lock file (so the CLI can find
 * the service that owns the embedded database) and, outside production, tells a newcomer what to
 * do next: where the API reference is, how to get a token, where the generated secrets are.
 */
export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const url = HttpServer.formatAddress(server.address)
    const lock = yield* HeldDataDirLock
    if (Option.isSome(lock)) yield* lock.value.advertise(url)
    const production = yield* isProduction
    if (production) return
    const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
    yield* Effect.logInfo(
      [
        `Ready on ${url}`,
        `  API reference   ${url}/docs`,
        "  a bearer token  npm run --silent cli -- token mint --sub user-1 [--role admin]",
        `  dev secrets     ${resolve(dataDir, "dev-secrets.json")} (INTERNAL_API_KEY there is the X-Internal-Key value)`
      ].join("\n")
    )
  })
)
