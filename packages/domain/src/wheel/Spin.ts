import { type DateTime, type Redacted, Schema } from "effect"
import { UserId } from "../auth/Model.ts"
import { ClientSeed } from "./ClientSeed.ts"
import { AlreadySpun } from "./Errors.ts"
import { Prize, SegmentId } from "./Model.ts"
import { RoundId } from "./Round.ts"

/** A spin's id, a UUID; it is also the idempotency key of the spin's ledger transaction. */
export const SpinId = Schema.String.check(Schema.isUUID()).pipe(Schema.brand("SpinId"))
export type SpinId = typeof SpinId.Type

/**
 * The client's `Idempotency-Key`: 1 to 255 visible ASCII characters. It names one spin request of
 * one user for ever; repeating it returns that spin instead of spinning again.
 */
export const IdempotencyKey = Schema.String.check(
  Schema.isPattern(/^[\x21-\x7e]{1,255}$/, { message: "must be 1 to 255 visible ASCII characters" })
).pipe(Schema.brand("IdempotencyKey"))
export type IdempotencyKey = typeof IdempotencyKey.Type

/**
 * The player's spin count under their client seed, part of the HMAC message: 0 for the first spin
 * after the seed is set, then one more per recorded spin. It is fixed by the rules, never chosen,
 * so the server cannot shop for outcomes. (Spins recorded before client seeds existed carry their
 * number in the round, always 0.)
 */
export const Nonce = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A recorded spin: enough to credit it, replay it for its idempotency key, and audit its draw. */
export class Spin extends Schema.Class<Spin>("Spin")({
  spinId: SpinId,
  userId: UserId,
  round: RoundId,
  wheelVersion: Schema.Int,
  /**
   * The client seed the spin was drawn with, kept with the spin for ever (a later change of seed
   * changes no past spin). `null` for a spin recorded before client seeds existed (migration 0014),
   * drawn by the earlier message `userId:round:nonce` (see `ProvablyFair.legacyDrawMessage`).
   */
  clientSeed: Schema.NullOr(ClientSeed),
  nonce: Nonce,
  drawValue: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  segmentId: SegmentId,
  prize: Prize,
  createdAt: Schema.DateTimeUtc,
  idempotencyKey: Schema.NullOr(IdempotencyKey)
}) {}

/**
 * The rule "one spin per user per round": a spin may not be recorded beside another spin of its
 * user in its round, nor beside another spin of its user under the same idempotency key (a key
 * names one spin request for ever). Returns the refusal, `AlreadySpun`, when `spin` breaks it
 * against one of `recorded`, else `undefined`. Every store of spins enforces it atomically with the
 * write (`SpinRepository.spun`): the in-memory one with this function under its lock, PostgreSQL
 * with the unique indexes that guard it (`spins_user_round_key`, `spins_user_idempotency_key`).
 */
export const oneSpinPerRound = (spin: Spin, recorded: Iterable<Spin>): AlreadySpun | undefined => {
  for (const other of recorded) {
    if (other.userId !== spin.userId) continue
    const sameKey = spin.idempotencyKey !== null && other.idempotencyKey === spin.idempotencyKey
    if (other.round === spin.round || sameKey) return new AlreadySpun({ round: spin.round })
  }
  return undefined
}

export interface SpinPage {
  readonly limit: number
  readonly offset: number
}

/** Hex SHA-256 of a round's seed, published while the round runs. */
export const Commitment = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{64}$/, { message: "must be 64 lower-case hex digits" })
)

/** A round's seed as stored; the bytes stay `Redacted` so no log can print them early. */
export interface RoundSeed {
  readonly round: RoundId
  readonly seed: Redacted.Redacted<Uint8Array>
  readonly commitment: string
  readonly createdAt: DateTime.Utc
}
