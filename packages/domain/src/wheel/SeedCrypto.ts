import { Context, type Effect } from "effect"

/**
 * The two hash functions of the provably-fair scheme. Behind a port because the domain cannot reach
 * `node:crypto`; the adapter uses it, the in-memory layer uses `effect/crypto` on WebCrypto. Both
 * must give the standard results: anyone re-computes them with any SHA-256 tool.
 */
export class SeedCrypto extends Context.Service<
  SeedCrypto,
  {
    /** SHA-256 of the bytes: the commitment to a round's seed. */
    sha256(data: Uint8Array): Effect.Effect<Uint8Array>
    /** HMAC-SHA256 keyed by `key` over the UTF-8 bytes of `message`. */
    hmacSha256(key: Uint8Array, message: string): Effect.Effect<Uint8Array>
  }
>()("@payments-gaming/domain/wheel/SeedCrypto") {}
