// The patch we carry on @effect/sql-pg (patches/@effect+sql-pg+4.0.5.patch, docs/effect-patch.md):
// a pipelined session that has carried statements without one answer for `connectionStallTimeout`
// is retired at its next checkout, so PostgresClient no longer replaces every pipelined connection
// on a 30 s clock (issue 35: that replacement, in the requests' path, was the open-loop tail's
// largest stall). What the option does is tested on a real server in
// packages/adapters/test/postgres/PostgresClient.test.ts (a backend stopped with SIGSTOP); here,
// that the patch is applied to the files it was written for.
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const dist = join(import.meta.dirname, "..", "..", "node_modules", "@effect", "sql-pg", "dist")
const sha256 = (name: string) =>
  createHash("sha256")
    .update(readFileSync(join(dist, name)))
    .digest("hex")

describe("the @effect/sql-pg patch (retire silent sessions)", () => {
  it("is applied to the installed @effect/sql-pg, which is the version it was written for", () => {
    const installed = JSON.parse(readFileSync(join(dist, "..", "package.json"), "utf8")).version
    assert.strictEqual(installed, "4.0.5", "@effect/sql-pg moved: re-check patches/@effect+sql-pg+4.0.5.patch")
    for (const file of ["PgPool.js", "PgConnection.js", "PgPool.d.ts"]) {
      assert.include(readFileSync(join(dist, file), "utf8"), "payments-gaming patch", `${file}: run npm ci`)
    }
  })

  // When @effect/sql-pg changes these files, this fails: re-check that the patch still applies and
  // is still needed (an upstream stall timeout would replace it), then update the hashes.
  it("the patched pool and connection are the files it was written and measured on", () => {
    assert.deepStrictEqual(
      { pool: sha256("PgPool.js"), connection: sha256("PgConnection.js"), types: sha256("PgPool.d.ts") },
      {
        pool: "c3625988dd689b4e515e36b732efff78c96653f98d45ab317344cbef17e90905",
        connection: "50f2f8a0cdf67af7c8ff147bf6a9fc4d8855d983c40b3b3972b34f4aef928484",
        types: "8feb9230bca0df5278fa93c8e0a7232f5e823b8651393cebf26f56f3c5a2ef4d"
      }
    )
  })
})
