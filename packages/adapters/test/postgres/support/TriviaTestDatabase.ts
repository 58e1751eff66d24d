import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import { Layer } from "effect"

/** The trivia service as the server wires it, on a fresh database; the repository and SQL client too. */
export const TriviaOnPostgres = Layers.Trivia.pipe(Layer.provideMerge(TestDatabase))
