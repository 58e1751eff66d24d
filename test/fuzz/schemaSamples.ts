import { Arbitrary, Effect, Schema } from "effect"

const sample = <A>(arbitrary: () => Arbitrary.Arbitrary<A>, count: number, seed: number): ReadonlyArray<A> => {
  try {
    return Effect.runSync(Arbitrary.sampleEffect(arbitrary(), { count, seed, size: 12 }))
  } catch {
    // Derivation is unstable for some schemas (declarations, tight filters); the hand-written
    // bodies still seed the fuzzing of that endpoint.
    return []
  }
}

/**
 * JSON bodies derived from a request Schema with Effect's own `Arbitrary`: values of its decoded
 * side encoded back to JSON (valid bodies, reaching the use case), and values of its encoded side
 * (right types, often wrong content, reaching the Schema's checks).
 */
export const schemaSamples = <S extends Schema.Codec<unknown, unknown>>(
  schema: S,
  count: number,
  seed: number
): ReadonlyArray<unknown> => {
  const encode = Schema.encodeUnknownExit(schema as Schema.Codec<unknown, unknown>)
  const valid = sample(() => Arbitrary.schema(schema), count, seed).flatMap((value) => {
    const exit = encode(value)
    return exit._tag === "Success" ? [exit.value] : []
  })
  const encoded = sample(() => Arbitrary.schema(Schema.toEncoded(schema)), count, seed + 1)
  // Through JSON once, so every seed is plain data (no class instances, no undefined members).
  return [...valid, ...encoded].flatMap((value) => {
    try {
      const text = JSON.stringify(value)
      return text === undefined ? [] : [JSON.parse(text) as unknown]
    } catch {
      return []
    }
  })
}
