import type { UserId } from "../auth/Model.ts"
import type { Spin } from "./Spin.ts"
import type { SpinAudit } from "./Views.ts"

/** Who asks for a finished round's audit: the verified caller, and whether their token has the admin role. */
export interface RoundViewer {
  readonly userId: UserId
  readonly isAdmin: boolean
}

/**
 * Whose spins a round audit lists for `viewer`: every player's for an admin (`undefined`, no
 * filter), anyone else's own only.
 *
 * Other players' spins are not listed even under a pseudonym. Nobody can recompute them without
 * their user id and client seed (both are part of the HMAC message), so an anonymous list would prove nothing about
 * the round's prize distribution, only repeat the server's word, while its times and prizes could
 * still be tied to people by whoever knows when they spun.
 */
export const spinOwnerFor = (viewer: RoundViewer): UserId | undefined => (viewer.isAdmin ? undefined : viewer.userId)

/**
 * The spins of `spins` that `viewer` sees, each in full. It filters again what `spinOwnerFor`
 * already asked the store for, so a store that ignored the filter still shows no one else's spin.
 */
export const visibleSpins = (viewer: RoundViewer, spins: ReadonlyArray<Spin>): ReadonlyArray<SpinAudit> =>
  spins
    .filter((spin) => viewer.isAdmin || spin.userId === viewer.userId)
    .map((spin) => ({
      spinId: spin.spinId,
      userId: spin.userId,
      clientSeed: spin.clientSeed,
      nonce: spin.nonce,
      wheelVersion: spin.wheelVersion,
      drawValue: spin.drawValue,
      segmentId: spin.segmentId,
      prize: spin.prize,
      createdAt: spin.createdAt
    }))
