import { Effect, Schema } from "effect"
import { Hex } from "effect/encoding"
import type { UserId } from "../auth/Model.ts"
import { utf8Bytes } from "../text/Utf8Bytes.ts"
import type { SeedCrypto } from "./SeedCrypto.ts"

/**
 * A player's client seed: 1 to 64 printable ASCII characters (space to tilde). ASCII only, so its
 * UTF-8 bytes, its JSON text and its length mean the same thing in every language a player may
 * verify with; mixed into every draw (see `ProvablyFair.drawMessage`).
 */
export const ClientSeed = Schema.String.check(
  Schema.isPattern(/^[\x20-\x7e]{1,64}$/, { message: "must be 1 to 64 printable ASCII characters" })
).pipe(Schema.brand("ClientSeed"))
export type ClientSeed = typeof ClientSeed.Type

/** Hex digits of the SHA-256 of the user id that make a default client seed. */
export const DEFAULT_CLIENT_SEED_LENGTH = 32

/**
 * The client seed of a player who never set one: the first 32 hex digits of SHA-256 over the UTF-8
 * bytes of their user id. Derived, not stored or drawn, so it costs no write and is the same on
 * every instance; and nothing the server picks. It protects no one against the operator (the
 * operator can compute it too): only a seed the player sets after seeing a round's commitment does.
 */
export const defaultClientSeed = (crypto: SeedCrypto["Service"], userId: UserId): Effect.Effect<ClientSeed> =>
  Effect.map(
    crypto.sha256(utf8Bytes(userId)),
    (digest) => Hex.encode(digest).slice(0, DEFAULT_CLIENT_SEED_LENGTH) as ClientSeed
  )
