// The patch we carry on @effect/sql-pg (patches/@effect+sql-pg+4.0.5.patch, docs/effect-patch.md),
// three changes (issue 35):
// - a pipelined session that has carried statements without one answer for
//   `connectionStallTimeout` is retired at its next checkout, so PostgresClient no longer replaces
//   every pipelined connection on a 30 s clock (that replacement, in the requests' path, was the
//   open-loop tail's largest stall);
// - a session writes its turn's first statements at once and whatever the rest of the event-loop
//   turn queues in one write at the check phase, not a write per I/O callback;
// - the prepared-statement cache finds a statement by its text, then its parameter types, instead
//   of building, flattening and hashing a key of both on every execution.
// What each does is tested on a real server in packages/adapters/test/postgres/PostgresClient.test.ts
// (a backend stopped with SIGSTOP; the writes counted on the socket; the backend's prepared
// statements); here, that the patch is applied to the files it was written for.
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const dist = join(import.meta.dirname, "..", "..", "node_modules", "@effect", "sql-pg", "dist")
const sha256 = (name: string) =>
  createHash("sha256")
    .update(readFileSync(join(dist, name)))
    .digest("hex")

describe("the @effect/sql-pg patch (retire silent sessions, a turn's later statements in one write, the cache by text)", () => {
  it("is applied to the installed @effect/sql-pg, which is the version it was written for", () => {
    const installed = JSON.parse(readFileSync(join(dist, "..", "package.json"), "utf8")).version
    assert.strictEqual(installed, "4.0.5", "@effect/sql-pg moved: re-check patches/@effect+sql-pg+4.0.5.patch")
    for (const file of ["PgPool.js", "PgConnection.js", "PgPool.d.ts"]) {
      assert.include(readFileSync(join(dist, file), "utf8"), "payments-gaming patch", `${file}: run npm ci`)
    }
  })

  // When @effect/sql-pg changes these files, this fails: re-check that the patch still applies and
  // is still needed (an upstream stall timeout, write batching or cache index would replace it), then update the hashes.
  it("the patched pool and connection are the files it was written and measured on", () => {
    assert.deepStrictEqual(
      { pool: sha256("PgPool.js"), connection: sha256("PgConnection.js"), types: sha256("PgPool.d.ts") },
      {
        pool: "1b5118185e639bbb12f45bb3dc6f1af5d2348076dea8ad57898124f1a917ae03",
        connection: "0c5c7009a11fa96396af4c7a8cac47ccc61ecd954c5b0fee7986116b34a0afbd",
        types: "8ab6b08a68a18b35a04283c41593cbacd2d846199b990e3a021999bdb8260355"
      }
    )
  })
})
