import { TriviaService } from "@payments-gaming/domain/trivia"
import { Layer } from "effect"
import * as ChallengeRepositoryPg from "../../packages/adapters/src/postgres/ChallengeRepository.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

/** The trivia service on the PostgreSQL repository, on a fresh database; the SQL client too. */
export const TriviaOnPostgres = TriviaService.layer.pipe(
  Layer.provideMerge(ChallengeRepositoryPg.layer),
  Layer.provideMerge(TestDatabase)
)
