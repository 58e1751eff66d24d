import * as Layers from "@payments-gaming/http/Layers"
import { Layer } from "effect"
import { TestDatabase } from "../support/TestDatabase.ts"

/** The trivia service as the server wires it, on a fresh database; the repository and SQL client too. */
export const TriviaOnPostgres = Layers.Trivia.pipe(Layer.provideMerge(TestDatabase))
