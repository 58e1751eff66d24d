import { Effect, Schema } from "effect"
import { CardValidationError } from "./Errors.ts"
import { NewCard } from "./Model.ts"

const decodeAll = Schema.decodeUnknownEffect(NewCard)

/**
 * Decodes a card request from untrusted input, reporting every broken field at once, for callers
 * that do not go through the HTTP layer's own decoding (the CLI, tests).
 */
export const decodeNewCard = (input: unknown): Effect.Effect<NewCard, CardValidationError> =>
  decodeAll(input, { errors: "all" }).pipe(Effect.mapError(CardValidationError.fromSchemaError))
