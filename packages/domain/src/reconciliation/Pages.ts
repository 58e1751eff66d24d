import { Schema } from "effect"
import { opaqueCursor } from "../paging/OpaqueCursor.ts"
import { BreakView, ReconciliationView } from "./Records.ts"

/** Ids of reconciliations and breaks: UUIDs (the shape only; any version). */
export const ReconciliationId = Schema.String.check(Schema.isGUID({ expected: "a UUID" }))

/** A break's id: a UUID, like its reconciliation's. */
export const BreakId = ReconciliationId

const RECONCILIATION_POSITION = /^(\d{1,15})\.([0-9a-fA-F-]{36})$/

/**
 * The `cursor` of the reconciliations' listing (newest first): base64url of
 * `<importedAt epoch ms>.<id>`, a keyset position, so imports made while an operator pages neither
 * repeat nor skip a row. Opaque to clients; anything that does not decode to a position is refused.
 */
export const ReconciliationCursor = opaqueCursor(Schema.Struct({ importedAt: Schema.Date, id: ReconciliationId }), {
  parse: (text) => {
    const match = RECONCILIATION_POSITION.exec(text)
    return match === null
      ? undefined
      : { importedAt: new Date(Number(match[1])), id: (match[2] as string).toLowerCase() }
  },
  format: (position) => `${position.importedAt.getTime()}.${position.id}`
})

const BREAK_POSITION = /^b(\d{1,9})$/

/**
 * The `cursor` of a reconciliation's breaks: base64url of `b<ordinal>`, the place of the last break
 * of the page in the report's order. Breaks are never added to a reconciliation after its import,
 * so a position is stable whatever is resolved meanwhile.
 */
export const BreakCursor = opaqueCursor(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), {
  parse: (text) => {
    const match = BREAK_POSITION.exec(text)
    return match === null ? undefined : Number(match[1])
  },
  format: (ordinal) => `b${ordinal}`
})

const nextCursor = <S extends Schema.Top>(cursor: S) =>
  Schema.NullOr(cursor).annotate({ description: "Pass as `cursor` for the next page; null on the last page" })

/** A page of reconciliations, newest first. */
export const ReconciliationPage = Schema.Struct({
  items: Schema.Array(ReconciliationView),
  nextCursor: nextCursor(ReconciliationCursor)
})
export type ReconciliationPage = typeof ReconciliationPage.Type

/** A page of a reconciliation's breaks, in the report's order. */
export const BreakPage = Schema.Struct({ items: Schema.Array(BreakView), nextCursor: nextCursor(BreakCursor) })
export type BreakPage = typeof BreakPage.Type

/** The service's page (`next` a position) as the API answers it (`nextCursor`, encoded by the schemas above). */
export const toPage = <Item, Position>(page: {
  readonly items: ReadonlyArray<Item>
  readonly next: Position | null
}): { readonly items: ReadonlyArray<Item>; readonly nextCursor: Position | null } => ({
  items: page.items,
  nextCursor: page.next
})
