import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient, SqlError, type Statement } from "effect/sql"
import * as Jose from "jose"

export interface Http {
  readonly send: (response: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) => void
  readonly readBody: (request: IncomingMessage) => Promise<Buffer>
}

const required = (name: string) => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is required`)
  return value
}

/**
 * The plain reference (REFERENCE_MODE=plain of bench/reference-server.ts): the four benchmarked
 * endpoints on bare node:http with the service's SQL, statement for statement, through the same
 * driver. Comments name the service function each block mirrors. What the service keeps in memory
 * that saves a statement (the virtual account links) it keeps too; the wheel and seed caches, which
 * it predates, it does not. Nor does it use the service's statement templates (StatementTemplate.ts):
 * it builds its statements per request, and writes a posting's rows as VALUES lists where the
 * service binds them as arrays.
 */
export async function startPlain(port: number, http: Http) {
  // The service's own client (PostgresClient.ts): the same driver, pool, pipelining and bounds.
  const setting = (name: string) => (process.env[name] === undefined ? undefined : Number(process.env[name]))
  const runtime = ManagedRuntime.make(
    PostgresClient.layer({
      url: Redacted.make(required("DATABASE_URL")),
      dataDir: undefined,
      maxConnections: setting("DATABASE_MAX_CONNECTIONS"),
      statementsPerConnection: setting("DATABASE_STATEMENTS_PER_CONNECTION"),
      applicationName: "bench-reference"
    })
  )
  const sql = await runtime.runPromise(SqlClient.SqlClient)
  const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect)

  // --- the same checks the service's adapters make -------------------------------------------

  const jwtKey = new TextEncoder().encode(required("AUTH_JWT_SECRET"))
  const jwtOptions: Jose.JWTVerifyOptions = {
    algorithms: ["HS256"],
    clockTolerance: 30,
    requiredClaims: ["exp", "sub"]
  }
  const authenticate = async (request: IncomingMessage) => {
    const header = request.headers.authorization
    if (header === undefined || !header.startsWith("Bearer ")) return undefined
    try {
      const { payload } = await Jose.jwtVerify(header.slice(7), jwtKey, jwtOptions)
      return typeof payload.sub === "string" && payload.sub.length > 0 ? payload.sub : undefined
    } catch {
      return undefined
    }
  }

  const webhookSecrets = required("WEBHOOK_SECRETS")
    .split(",")
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0)
  const signatureValid = (raw: Buffer, signature: string | undefined) => {
    if (signature === undefined || !/^[0-9a-fA-F]{64}$/.test(signature.trim())) return false
    const given = Buffer.from(signature.trim(), "hex")
    let matched = false
    for (const secret of webhookSecrets) {
      if (timingSafeEqual(createHmac("sha256", secret).update(raw).digest(), given)) matched = true
    }
    return matched
  }

  const cardKey = required("CARD_FINGERPRINT_KEY")
  const zone = process.env.WHEEL_TIMEZONE ?? "Africa/Lagos"
  const zoned = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23"
  })
  const pad = (value: number) => String(value).padStart(2, "0")
  /** The round (local date) and the countdown to local midnight; days of 24 hours (true of Lagos). */
  const clock = (at: Date) => {
    const parts: Record<string, string> = {}
    for (const part of zoned.formatToParts(at)) parts[part.type] = part.value
    const elapsed = Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second)
    const left = 86_400 - elapsed
    const opensAt = new Date(at.getTime() - elapsed * 1000 - at.getMilliseconds())
    return {
      round: `${parts.year}-${parts.month}-${parts.day}`,
      opensAt,
      closesAt: new Date(opensAt.getTime() + 86_400_000),
      expiresIn: `${pad(Math.floor(left / 3600))}:${pad(Math.floor((left % 3600) / 60))}:${pad(left % 60)}`
    }
  }
  const envelope = (message: string, data: unknown) => ({
    timestamp: String(Date.now()),
    status: 200,
    success: true,
    message,
    data
  })

  // --- the service's SQL ---------------------------------------------------------------------

  interface SegmentRow {
    readonly version: number
    readonly currency: string
    readonly segmentId: string
    readonly label: string
    readonly type: string
    readonly value: bigint
    readonly weight: bigint
  }
  // WheelRepository.active
  const activeWheel = sql<SegmentRow>`SELECT w.version, w.currency, s.segment_id AS "segmentId", s.label, s.type, s.value, s.weight
    FROM wheels w JOIN wheel_segments s ON s.wheel_id = w.id
    WHERE w.active
    ORDER BY s.position`

  interface SeedRow {
    readonly round: string
    readonly seed: Uint8Array
    readonly commitment: string
  }
  // RoundSeeds.getOrCreate
  const findSeed = (round: string) =>
    sql<SeedRow>`SELECT round, seed, commitment, created_at AS "createdAt" FROM round_seeds WHERE round = ${round}`
  const seedOf = (round: string) =>
    Effect.gen(function* () {
      const [stored] = yield* findSeed(round)
      if (stored !== undefined) return stored
      const seed = randomBytes(32)
      const commitment = createHash("sha256").update(seed).digest("hex")
      yield* sql`INSERT INTO round_seeds (round, seed, commitment, created_at)
        VALUES (${round}, ${seed}, ${commitment}, ${new Date()})
        ON CONFLICT (round) DO NOTHING`
      const [winner] = yield* findSeed(round)
      return winner!
    })

  // Ledger.balances
  const coinBalance = (userId: string) =>
    Effect.map(
      sql<{
        unit: string
        balance: bigint
      }>`SELECT unit, balance FROM ledger_accounts WHERE owner_user_id = ${userId} ORDER BY unit`,
      (rows) => Number(rows.find((row) => row.unit === "COIN")?.balance ?? 0n)
    )

  interface Account {
    readonly id: string
    readonly unit: string
  }
  // As LedgerWrites.recordParts for a credit (no user account goes down; the service binds the rows as
  // arrays to one statement template, this reference writes VALUES lists): the common table expressions,
  // gated by `when`, for the one statement that also writes what caused it. The system account's
  // row is created if missing and otherwise neither written nor locked; the user's balance is
  // upserted under the user's row lock; both postings in the transaction's order.
  const creditParts = (
    key: string,
    kind: string,
    from: Account,
    to: Account,
    userId: string,
    minor: bigint,
    when: Statement.Fragment
  ) => [
    sql`tx AS (
          INSERT INTO ledger_transactions (idempotency_key, kind) SELECT ${key}, ${kind}
          WHERE ${when}
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING id
        )`,
    sql`system_accounts AS (
          INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          SELECT v.id, v.unit, NULL, false, NULL
          FROM (VALUES (${from.id}, ${from.unit})) AS v (id, unit)
          WHERE EXISTS (SELECT 1 FROM tx)
          ON CONFLICT (id) DO NOTHING
        )`,
    sql`user_accounts AS (
          INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          SELECT v.id, v.unit, v.owner_user_id, true, v.balance
          FROM (VALUES (${to.id}, ${to.unit}, ${userId}, ${minor}::bigint)) AS v (id, unit, owner_user_id, balance)
          WHERE EXISTS (SELECT 1 FROM tx)
          ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + excluded.balance, updated_at = now()
          RETURNING id, balance
        )`,
    sql`postings AS (
          INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
          SELECT tx.id, v.account_id, v.unit, v.amount_minor
          FROM tx CROSS JOIN (VALUES (${0}::int, ${from.id}, ${from.unit}, ${-minor}::bigint),
            (${1}::int, ${to.id}, ${to.unit}, ${minor}::bigint)) AS v (position, account_id, unit, amount_minor)
          WHERE (SELECT count(*) FROM user_accounts) >= 0
          ORDER BY v.position
        )`
  ]

  // OutboxWrites.outboxRows, gated on the posting being new (the bench's users have no devices).
  const notifiedPart = (eventKey: string, userId: string, templateCode: string) =>
    sql`notified AS (
          INSERT INTO notification_outbox (event_key, device_id, user_id, template_code, title, body)
          SELECT ${eventKey}, d.id, d.user_id, ${templateCode}, ${"Money received"}, ${"You received money"}
          FROM user_devices d WHERE d.user_id = ${userId} AND d.active AND EXISTS (SELECT 1 FROM tx)
          ON CONFLICT (event_key, device_id) DO NOTHING
        )`

  /** A unique violation of `constraint`: a refusal the statement's own keys made. */
  const violates = (constraints: ReadonlyArray<string>) => (error: unknown) =>
    SqlError.isSqlError(error) &&
    error.reason._tag === "UniqueViolation" &&
    constraints.includes(error.reason.constraint)

  // --- handlers ------------------------------------------------------------------------------

  const wheelView = async (request: IncomingMessage, response: ServerResponse) => {
    const userId = await authenticate(request)
    if (userId === undefined) return http.send(response, 401, { status: 401, message: "Unauthorized" })
    const at = new Date()
    const { round, expiresIn } = clock(at)
    const { rows, seed, coins } = await run(
      Effect.gen(function* () {
        const rows = yield* activeWheel
        const seed = yield* seedOf(round)
        const coins = yield* coinBalance(userId)
        return { rows, seed, coins }
      })
    )
    const segments = rows.map((row) => ({
      id: row.segmentId,
      label: row.label,
      value: Number(row.value),
      type: row.type
    }))
    http.send(
      response,
      200,
      envelope("Spin and win segments fetched successfully", { coinBalance: coins, expiresIn, segments }),
      { "x-spin-round": round, "x-round-commitment": seed.commitment }
    )
  }

  /** Decimal text ("4950.5", "4950.50") as kobo; the bench only sends well-formed amounts. */
  const toMinor = (text: string) => {
    const [whole, fraction = ""] = text.split(".") as [string, string?]
    return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0").slice(0, 2))
  }

  // VirtualAccountCache: a link read is kept for 60 s (the bench's accounts are all seen by then).
  const links = new Map<string, { readonly userId: string; readonly currency: string; readonly readAt: number }>()
  const linkOf = (accountNumber: string) =>
    Effect.suspend(() => {
      const now = Date.now()
      const cached = links.get(accountNumber)
      if (cached !== undefined && now - cached.readAt < 60_000) return Effect.succeed(cached)
      return Effect.map(
        sql<{
          user_id: string
          currency: string
        }>`SELECT * FROM virtual_accounts WHERE account_number = ${accountNumber}`,
        ([row]) => {
          if (row === undefined) return undefined
          const link = { userId: row.user_id, currency: row.currency, readAt: now }
          links.set(accountNumber, link)
          return link
        }
      )
    })

  const webhook = async (request: IncomingMessage, response: ServerResponse) => {
    const receivedAt = new Date()
    const raw = await http.readBody(request)
    const signature = request.headers["x-provider-signature"]
    const given = typeof signature === "string" ? signature : undefined
    if (!signatureValid(raw, given))
      return http.send(response, 401, { status: 401, message: "Invalid signature", data: null })
    const payload = JSON.parse(raw.toString("utf8"))
    const data = payload.data
    if (payload.virtualAccountCredit !== true || data?.status !== "SUCCESSFUL" || data.type !== "CREDIT") {
      return http.send(response, 400, {
        status: 400,
        message: "the reference only takes successful credits",
        data: null
      })
    }
    const reference = String(data.reference)
    const accountNumber = String(data.virtual_account_number ?? data.account_number)
    const minor = toMinor(String(data.settled_amount))
    const kind = "virtualaccount.credit"
    await run(
      // BankingService.receive: find the account (cached) and decide, then one statement stores the
      // event with its outcome, posts when it was new and notifies when the posting was
      // (WebhookInbox.store with its NotifiedPosting); no transaction. A deposit the ledger held
      // already is stored "already credited" by that statement (corrected after it only when a post
      // of the same deposit raced it).
      Effect.gen(function* () {
        const account = yield* linkOf(accountNumber)
        const matched = account !== undefined && account.currency === data.currency && minor > 0n
        const outcome = matched ? "processed" : "unmatched"
        const reason = matched ? null : `no virtual account ${accountNumber}`
        const heldOrNot = matched
          ? sql`SELECT CASE WHEN ledger.holds THEN 'already credited' ELSE ${reason} END
              FROM (SELECT EXISTS (SELECT 1 FROM ledger_transactions
                WHERE idempotency_key = ${`${kind}:${reference}`}) AS holds) AS ledger`
          : sql`VALUES (${reason})`
        const event = sql`INSERT INTO webhook_events
              (kind, reference, dedup_key, raw_body, signature, received_at, outcome, reason, processed_at)
            SELECT ${kind}, ${reference}, ${`${kind}:${reference}`}, ${new Uint8Array(raw)}, ${given ?? ""},
              ${receivedAt}, ${outcome}, stored.reason, ${new Date()}
            FROM (${heldOrNot}) AS stored (reason)
            ON CONFLICT (kind, reference) WHERE outcome <> 'conflict' DO NOTHING
            RETURNING id, reason`
        type Row = { id: string; reason: string | null; posted: boolean }
        const [stored] = !matched
          ? yield* sql<Row>`${event}, false AS posted`
          : yield* sql<Row>`WITH ${sql.csv([
              sql`event AS (${event})`,
              ...creditParts(
                `${kind}:${reference}`,
                "deposit",
                { id: `system:provider-settlement:${account.currency}`, unit: account.currency },
                { id: `user:${account.userId}:cash:${account.currency}`, unit: account.currency },
                account.userId,
                minor,
                sql`EXISTS (SELECT 1 FROM event)`
              ),
              notifiedPart(`${kind}:${reference}`, account.userId, "DEPOSIT_RECEIVED")
            ])} SELECT id, reason, EXISTS (SELECT 1 FROM tx) AS posted FROM event`
        if (stored === undefined) {
          yield* sql`SELECT * FROM webhook_events
              WHERE kind = ${kind} AND reference = ${reference} AND outcome <> 'conflict'`
          return
        }
        if (matched && !stored.posted && stored.reason !== "already credited") {
          yield* sql`UPDATE webhook_events SET reason = 'already credited' WHERE id = ${stored.id}::uuid`
        }
      })
    )
    http.send(response, 200, { status: 200, message: "Webhook processed successfully", data: "OK" })
  }

  const brandOf = (digits: string) =>
    digits.startsWith("4") ? "VISA" : /^(5[1-5]|2[2-7])/.test(digits) ? "MASTERCARD" : undefined
  const luhnValid = (digits: string) => {
    let sum = 0
    for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
      let digit = digits.charCodeAt(i) - 48
      if (double) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2
      sum += digit
    }
    return sum % 10 === 0
  }

  /** A refusal the client caused (409), as opposed to a failure of the reference itself. */
  class Refused {
    readonly message: string
    constructor(message: string) {
      this.message = message
    }
  }

  /** Answers a refusal the client caused with a 409; anything else is the reference's own failure. */
  const refuse = (response: ServerResponse, failure: unknown) => {
    if (failure instanceof Refused)
      return http.send(response, 409, { status: 409, message: failure.message, data: null })
    throw failure
  }

  const addCard = async (request: IncomingMessage, response: ServerResponse) => {
    const userId = await authenticate(request)
    if (userId === undefined) return http.send(response, 401, { status: 401, message: "Unauthorized" })
    const body = JSON.parse((await http.readBody(request)).toString("utf8"))
    const digits = String(body.cardNumber)
    const brand = brandOf(digits)
    const now = new Date()
    const expired =
      body.expiryYear < now.getUTCFullYear() ||
      (body.expiryYear === now.getUTCFullYear() && body.expiryMonth < now.getUTCMonth() + 1)
    if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits) || brand === undefined || expired) {
      return http.send(response, 400, { status: 400, message: "invalid card", data: null })
    }
    const fingerprint = createHmac("sha256", cardKey).update(digits).digest("hex")
    const firstDigits = digits.slice(0, digits.length >= 16 ? 8 : 4)
    const last4 = digits.slice(-4)
    const createdAt = new Date(Math.floor(now.getTime() / 1000) * 1000)
    const outcome = await run(
      // CardRepository.insert: one statement, the holder row locked and its count claimed in an
      // upsert and the card inserted from it (a duplicate is the unique index's violation, which
      // undoes the count); the duplicate lookup only when the limit is reached.
      Effect.gen(function* () {
        const [card] = yield* sql<{
          id: string
          cardholderName: string
          brand: string
          firstDigits: string
          last4: string
          expiryMonth: number
          expiryYear: number
          createdAt: Date
        }>`WITH slot AS (
              INSERT INTO card_holders (user_id, active_cards)
              SELECT ${userId}, 1 WHERE ${10} >= 1
              ON CONFLICT (user_id) DO UPDATE SET active_cards = card_holders.active_cards + 1
                WHERE card_holders.active_cards < ${10}
              RETURNING user_id
            )
            INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
              expiry_month, expiry_year, created_at)
            SELECT slot.user_id, ${brand}, ${firstDigits}, ${last4}, ${fingerprint},
              ${String(body.cardholderName)}, ${body.expiryMonth}, ${body.expiryYear}, ${createdAt}
            FROM slot
            RETURNING id, cardholder_name AS "cardholderName", brand, first_digits AS "firstDigits", last4,
              expiry_month AS "expiryMonth", expiry_year AS "expiryYear", created_at AS "createdAt"`.pipe(
          Effect.catchIf(violates(["cards_user_fingerprint_active"]), () => Effect.fail(new Refused("duplicate card")))
        )
        if (card !== undefined) return card
        const existing = yield* sql`SELECT 1 FROM cards
            WHERE user_id = ${userId} AND fingerprint = ${fingerprint} AND deleted_at IS NULL`
        return yield* Effect.fail(new Refused(existing.length > 0 ? "duplicate card" : "card limit reached"))
      }).pipe(Effect.result)
    )
    if (outcome._tag === "Failure") return refuse(response, outcome.failure)
    const card = outcome.success
    const prefix = card.firstDigits.length >= 8 ? card.firstDigits : `${card.firstDigits}****`
    http.send(
      response,
      200,
      envelope("Card added successfully", {
        cardId: card.id,
        cardholderName: card.cardholderName,
        brand: card.brand,
        last4: card.last4,
        maskedNumber: `${prefix.slice(0, 4)} ${prefix.slice(4)} **** ${card.last4}`,
        expiryMonth: card.expiryMonth,
        expiryYear: card.expiryYear,
        createdAt: card.createdAt.toISOString().replace(/\.\d{3}Z$/, "Z")
      })
    )
  }

  /** Draw.drawFromBytes over HMAC-SHA256(seed, "user:round:nonce[:attempt]"), as ProvablyFair does. */
  const drawValue = (seed: Uint8Array, message: string, total: number) => {
    const limit = 2 ** 32 - (2 ** 32 % total)
    for (let attempt = 0; attempt < 64; attempt++) {
      const bytes = createHmac("sha256", seed)
        .update(attempt === 0 ? message : `${message}:${attempt}`)
        .digest()
      for (let offset = 0; offset + 4 <= bytes.length; offset += 4) {
        const chunk = bytes.readUInt32BE(offset)
        if (chunk < limit) return chunk % total
      }
    }
    throw new Error("no draw accepted")
  }

  const spin = async (request: IncomingMessage, response: ServerResponse) => {
    const userId = await authenticate(request)
    if (userId === undefined) return http.send(response, 401, { status: 401, message: "Unauthorized" })
    const at = new Date()
    const { round, expiresIn, opensAt, closesAt } = clock(at)
    const outcome = await run(
      Effect.gen(function* () {
        const rows = yield* activeWheel
        const seed = yield* seedOf(round)
        const first = rows[0]!
        const total = rows.reduce((sum, row) => sum + Number(row.weight), 0)
        const spinId = randomUUID()
        // ClientSeed.defaultClientSeed: the first 32 hex digits of SHA-256 of the user id.
        const fallback = createHash("sha256").update(userId).digest("hex").slice(0, 32)
        // SpinAndWinService.spin: the seed and next nonce read once, the draw, then one statement
        // that, while the round is open by the database's clock, takes the nonce, records the spin,
        // posts and announces its prize and reads the coin balance (SpinRepository.record); refused
        // when the nonce was taken meanwhile or the round closed.
        {
          const [state] = yield* sql<{ clientSeed: string; nonce: number }>`SELECT client_seed AS "clientSeed",
              next_nonce AS nonce FROM wheel_client_seeds WHERE user_id = ${userId}`
          const { clientSeed, nonce } = state ?? { clientSeed: fallback, nonce: 0 }
          const value = drawValue(seed.seed, JSON.stringify([clientSeed, userId, nonce]), total)
          let end = 0
          const segment = rows.find((row) => {
            end += Number(row.weight)
            return value < end
          })!
          const prize = Number(segment.value)
          const coinAccount = `user:${userId}:coins`
          const parts = [
            sql`open AS (
                SELECT 1 WHERE now() >= ${opensAt}::timestamptz AND now() < ${closesAt}::timestamptz
              )`,
            sql`claimed AS (
                UPDATE wheel_client_seeds SET next_nonce = next_nonce + 1
                WHERE user_id = ${userId} AND client_seed = ${clientSeed} AND next_nonce = ${nonce}::int
                  AND EXISTS (SELECT 1 FROM open)
                RETURNING user_id
              )`,
            sql`created AS (
                INSERT INTO wheel_client_seeds (user_id, client_seed, next_nonce)
                SELECT ${userId}, ${clientSeed}, 1 WHERE ${nonce}::int = 0 AND NOT EXISTS (SELECT 1 FROM claimed)
                  AND EXISTS (SELECT 1 FROM open)
                ON CONFLICT (user_id) DO NOTHING
                RETURNING user_id
              )`,
            sql`recorded AS (
                INSERT INTO spins (id, user_id, round, wheel_version, client_seed, nonce,
                  draw_value, segment_id, prize_type, prize_value, idempotency_key, created_at)
                SELECT ${spinId}, taken.user_id, ${round}, ${first.version}, ${clientSeed}, ${nonce}, ${value},
                  ${segment.segmentId}, ${segment.type}, ${prize}, ${null}, ${at}
                FROM (SELECT user_id FROM claimed UNION ALL SELECT user_id FROM created) AS taken
                RETURNING id
              )`
          ]
          if (prize > 0) {
            const gate = sql`EXISTS (SELECT 1 FROM recorded)`
            const currency = first.currency
            parts.push(
              ...(segment.type === "coin"
                ? creditParts(
                    spinId,
                    "prize",
                    { id: "system:prize-pool:coins", unit: "COIN" },
                    { id: coinAccount, unit: "COIN" },
                    userId,
                    BigInt(prize),
                    gate
                  )
                : creditParts(
                    spinId,
                    "prize",
                    { id: `system:prize-pool:cash:${currency}`, unit: currency },
                    { id: `user:${userId}:cash:${currency}`, unit: currency },
                    userId,
                    BigInt(prize) * 100n,
                    gate
                  )),
              notifiedPart(spinId, userId, "SPIN_PRIZE_WON")
            )
          }
          const stored = sql`(SELECT balance FROM ledger_accounts WHERE id = ${coinAccount})`
          const coins =
            prize > 0 && segment.type === "coin"
              ? sql`COALESCE((SELECT balance FROM user_accounts WHERE id = ${coinAccount}), ${stored}, 0)`
              : sql`COALESCE(${stored}, 0)`
          const [written] = yield* sql<{ recorded: boolean; coins: bigint }>`WITH ${sql.csv(parts)}
              SELECT EXISTS (SELECT 1 FROM recorded) AS recorded, (${coins})::bigint AS coins`.pipe(
            Effect.catchIf(violates(["spins_user_round_key", "spins_user_idempotency_key"]), () =>
              Effect.fail(new Refused("already spun"))
            )
          )
          if (written?.recorded === true) {
            return { segment, prize, spinId, coins: Number(written.coins), commitment: seed.commitment }
          }
          return yield* Effect.fail(new Refused("round closed or contended"))
        }
      }).pipe(Effect.result)
    )
    if (outcome._tag === "Failure") return refuse(response, outcome.failure)
    const { segment, prize, spinId, coins, commitment } = outcome.success
    http.send(
      response,
      200,
      envelope("Spin completed", {
        segment: { id: segment.segmentId, label: segment.label, value: prize, type: segment.type },
        coinBalance: coins,
        expiresIn
      }),
      { "x-spin-id": spinId, "x-spin-round": round, "x-round-commitment": commitment }
    )
  }

  const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => Promise<void>> = {
    "GET /v1/spin-and-win": wheelView,
    [`POST ${WEBHOOK_PATH}`]: webhook,
    "POST /v1/user/cards": addCard,
    "POST /v1/spin-and-win/spin": spin,
    "GET /readyz": async (_request, response) => {
      await run(sql`SELECT 1`)
      http.send(response, 200, { status: "ok" })
    }
  }

  // One line per distinct failure: a broken reference must be visible, not flood the output.
  const reported = new Set<string>()
  createServer((request, response) => {
    const handler = routes[`${request.method} ${request.url}`]
    if (handler === undefined) {
      request.resume()
      return http.send(response, 404, { status: 404, message: "Not found", data: null })
    }
    handler(request, response).catch((error: unknown) => {
      const text = error instanceof Error ? error.message : String(error)
      if (!reported.has(text)) {
        reported.add(text)
        console.error(`reference ${request.method} ${request.url} failed: ${text}`)
      }
      if (!response.headersSent) http.send(response, 500, { status: 500, message: "Internal error", data: null })
    })
  }).listen(port, "127.0.0.1")

  const close = () => {
    void runtime.dispose().finally(() => process.exit(0))
  }
  process.once("SIGTERM", close)
  process.once("SIGINT", close)
}
