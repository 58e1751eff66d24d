import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// Trivia challenges. The rules the API enforces are repeated as CHECKs so that no other writer
// (a script, a future endpoint) can store a challenge the domain would refuse to read back.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS trivia_challenges (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
    prize_amount numeric(20, 2) NOT NULL CHECK (prize_amount >= 0),
    start_time timestamptz NOT NULL,
    end_time timestamptz NOT NULL,
    question_type integer NOT NULL CHECK (question_type >= 1),
    question_count integer NOT NULL CHECK (question_count BETWEEN 1 AND 100),
    number_of_winners integer NOT NULL CHECK (number_of_winners >= 1),
    sharing_formula text NOT NULL CHECK (sharing_formula IN ('PROPORTIONAL', 'EQUAL')),
    version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT trivia_challenges_ends_after_start CHECK (end_time > start_time)
  )`
  // The list order; the id makes it total so pages never overlap or skip.
  yield* sql`CREATE INDEX IF NOT EXISTS trivia_challenges_start_time_id ON trivia_challenges (start_time, id)`
})
