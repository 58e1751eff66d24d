import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { isProduction } from "@payments-gaming/adapters/config/NodeEnv"
import { HeldDataDirLock } from "@payments-gaming/adapters/postgres/DataDirLock"
import { Config, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"

/**
 * The URL the CLI reaches this server at: bound to every address (HOST=0.0.0.0 or ::), it is the
 * loopback one, since the CLI sends credentials only to a loopback URL (apps/cli/src/Backend.ts).
 */
const loopbackUrl = (url: string) => {
  const parsed = new URL(url)
  if (parsed.hostname === "0.0.0.0") parsed.hostname = "127.0.0.1"
  else if (parsed.hostname === "[::]") parsed.hostname = "[::1]"
  else return url
  return parsed.origin
}

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
    if (Option.isSome(lock)) yield* lock.value.advertise(loopbackUrl(url))
    const production = yield* isProduction
    if (production) return
    const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
    const secretsFile = resolve(dataDir, "dev-secrets.json")
    yield* Effect.logInfo(
      [
        `Ready on ${url}`,
        `  API reference   ${url}/docs`,
        "  a bearer token  npm run --silent cli -- token mint --sub user-1 [--role admin]",
        // With every secret configured there is no file (DevSecrets writes only what it generates).
        ...(existsSync(secretsFile)
          ? [`  dev secrets     ${secretsFile} (INTERNAL_API_KEY there is the X-Internal-Key value, unless set)`]
          : [])
      ].join("\n")
    )
  })
)
