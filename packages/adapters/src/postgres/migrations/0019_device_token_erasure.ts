import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A device's token is kept only while the device is active (issue 34): sending needs it whole, and
 * nothing needs it afterwards (an inactive device is never sent to, listed or answered; the outbox
 * reads a token at each claim and treats a missing one as a device that is gone). Deactivation, by
 * its user or by the provider, erases it (NULL), and a user keeps at most `MAX_INACTIVE_DEVICES`
 * inactive rows, the newest, so register and remove cycles cannot grow the table. An active row
 * always has its token (the CHECK). The unique key ignores NULLs, so erased rows never collide, and
 * a token registered again after its device was erased is a new device.
 *
 * This migration erases the tokens of the devices already inactive, and prunes each user's inactive
 * rows to the 20 newest (the domain's MAX_INACTIVE_DEVICES when it was written).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE user_devices ALTER COLUMN token DROP NOT NULL`
  yield* sql`ALTER TABLE user_devices ADD CONSTRAINT user_devices_active_token_check
    CHECK (NOT active OR token IS NOT NULL)`
  yield* sql`UPDATE user_devices SET token = NULL WHERE NOT active AND token IS NOT NULL`
  yield* sql`DELETE FROM user_devices WHERE id IN (
    SELECT id FROM (
      SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY deactivated_at DESC NULLS LAST, id DESC) AS rank
      FROM user_devices WHERE NOT active
    ) AS ranked WHERE rank > 20
  )`
})
