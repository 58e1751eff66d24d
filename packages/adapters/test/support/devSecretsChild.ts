// A process of its own for DevSecrets' race test: waits for START_AT (epoch ms), so that every child
// reads and writes DATA_DIR/dev-secrets.json in the same instant, then prints the JWT secret it
// would sign with on the last line (the layer's log lines come before it).
import { Config, Effect, Redacted } from "effect"
import * as DevSecrets from "../../src/config/DevSecrets.ts"

const startAt = Number(process.env.START_AT)
while (Date.now() < startAt) {
  // Busy-wait rather than a timer: a timer's wake-up spreads the children by milliseconds.
}
const secret = await Effect.runPromise(
  Effect.gen(function* () {
    return Redacted.value(yield* Config.Redacted("AUTH_JWT_SECRET"))
  }).pipe(Effect.provide(DevSecrets.layer))
)
process.stdout.write(`\n${secret}\n`)
