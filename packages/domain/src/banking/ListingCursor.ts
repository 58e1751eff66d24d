import { Schema } from "effect"
import { opaqueCursor } from "../paging/OpaqueCursor.ts"

/**
 * Where a newest-first listing stands: the next page holds what sorts strictly after this
 * (receivedAt, id) in descending order. A position, not an offset, so rows arriving or changing
 * outcome while an operator pages neither repeat nor skip the rows already ordered before them.
 */
export interface ListingPosition {
  readonly receivedAt: Date
  readonly id: string
}

/** Ids of stored events and dead letters: UUIDs (the shape only; any version). */
export const StoredId = Schema.String.check(Schema.isGUID({ expected: "a UUID" }))

const POSITION = /^(\d{1,15})\.([0-9a-fA-F-]{36})$/

/**
 * The `cursor` of a listing: base64url of `<receivedAt epoch ms>.<id>` (an `opaqueCursor`). Opaque
 * to clients (they pass back what `nextCursor` gave them); anything that does not decode to a
 * position is refused.
 */
export const ListingCursor = opaqueCursor(Schema.Struct({ receivedAt: Schema.Date, id: StoredId }), {
  parse: (text) => {
    const match = POSITION.exec(text)
    return match === null
      ? undefined
      : { receivedAt: new Date(Number(match[1])), id: (match[2] as string).toLowerCase() }
  },
  format: (position) => `${position.receivedAt.getTime()}.${position.id}`
})

/** The cursor text of a position, as a listing hands it out in `nextCursor`. */
export const encodeCursor: (position: ListingPosition) => string = Schema.encodeSync(ListingCursor)
