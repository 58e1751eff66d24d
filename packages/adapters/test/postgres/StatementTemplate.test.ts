import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { statementTemplate } from "../../src/postgres/StatementTemplate.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

describe("statementTemplate on PostgreSQL", () => {
  layer(TestDatabase, { timeout: "60 seconds" })((it) => {
    it.effect("binds each call's values by slot name, a slot used twice and arrays through unnest", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        let builds = 0
        const sum = statementTemplate(sql, ["n", "words"], (slot) => {
          builds++
          return sql`SELECT ${slot.n}::int + ${slot.n}::int AS twice,
            (SELECT string_agg(w, ',' ORDER BY o) FROM unnest(${slot.words}::text[]) WITH ORDINALITY AS t (w, o))
              AS joined`
        })
        type Row = { readonly twice: number; readonly joined: string | null }
        assert.deepStrictEqual(yield* sum<Row>({ n: 2, words: ["a", "b", "c"] }), [{ twice: 4, joined: "a,b,c" }])
        assert.deepStrictEqual(yield* sum<Row>({ words: ["z"], n: 20 }), [{ twice: 40, joined: "z" }])
        assert.deepStrictEqual(yield* sum<Row>({ n: 0, words: [] }), [{ twice: 0, joined: null }])
        // Compiled once, and its line breaks folded.
        assert.strictEqual(builds, 1)
        const [text, params] = sum({ n: 1, words: ["x"] }).compile()
        assert.notInclude(text, "\n")
        assert.include(text, "SELECT $1::int + $2::int AS twice, (SELECT string_agg")
        assert.deepStrictEqual(params, [1, 1, ["x"]])
      })
    )

    it.effect("refuses, when built, a repeated or unused slot, a value that is not a slot and a comment", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        assert.throws(
          () => statementTemplate(sql, ["a", "a"], (slot) => sql`SELECT ${slot.a}::int AS a`),
          /slot names given twice: a/
        )
        assert.throws(
          () => statementTemplate(sql, ["a", "b"], (slot) => sql`SELECT ${slot.a}::int AS a`),
          /slots never used: b/
        )
        assert.throws(
          () => statementTemplate(sql, ["a"], (slot) => sql`SELECT ${slot.a}::int + ${1}::int AS a`),
          /a parameter is not one of its slots \(1\)/
        )
        assert.throws(
          () =>
            statementTemplate(
              sql,
              ["a"],
              (slot) => sql`SELECT ${slot.a}::int -- the folded line would hide the rest
            AS a`
            ),
          /no SQL comments/
        )
      })
    )

    it.effect("refuses a value left undefined, and binds null as NULL", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const pair = statementTemplate(sql, ["a", "b"], (slot) => sql`SELECT ${slot.a}::int AS a, ${slot.b}::text AS b`)
        assert.throws(() => pair({ a: 1, b: undefined }), /no value for slot b/)
        assert.deepStrictEqual(yield* pair<{ a: number; b: string | null }>({ a: 1, b: null }), [{ a: 1, b: null }])
      })
    )
  })
})
