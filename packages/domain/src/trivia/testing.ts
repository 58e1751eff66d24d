import { DateTime, Effect, Layer, Option, Order, Ref } from "effect"
import { ChallengeRepository } from "./ChallengeRepository.ts"
import { ChallengeNotFound, ConcurrentUpdate } from "./Errors.ts"
import { Challenge, type ChallengeId, type ChallengeInput, type Page } from "./Model.ts"

interface Store {
  readonly lastId: number
  readonly rows: ReadonlyMap<number, Challenge>
}

const byStartThenId = Order.combine(
  Order.mapInput(DateTime.Order, (challenge: Challenge) => challenge.startTime),
  Order.mapInput(Order.Number, (challenge: Challenge) => challenge.id)
)

/** An in-memory `ChallengeRepository` with the same compare-and-set update as the SQL one. */
export const makeMemoryRepository: Effect.Effect<ChallengeRepository["Service"]> = Effect.gen(function* () {
  const store = yield* Ref.make<Store>({ lastId: 0, rows: new Map() })

  const create = (input: ChallengeInput, at: DateTime.Utc) =>
    Ref.modify(store, ({ lastId, rows }) => {
      const challenge = new Challenge({
        ...input,
        id: (lastId + 1) as ChallengeId,
        version: 1,
        createdAt: at,
        updatedAt: at
      })
      return [challenge, { lastId: lastId + 1, rows: new Map(rows).set(challenge.id, challenge) }]
    })

  const findById = (id: ChallengeId) => Effect.map(Ref.get(store), ({ rows }) => Option.fromNullishOr(rows.get(id)))

  const list = ({ limit, offset }: Page) =>
    Effect.map(Ref.get(store), ({ rows }) => [...rows.values()].sort(byStartThenId).slice(offset, offset + limit))

  const update = (id: ChallengeId, input: ChallengeInput, expectedVersion: number, at: DateTime.Utc) =>
    Effect.flatten(
      Ref.modify(store, (current): readonly [Effect.Effect<Challenge, ChallengeNotFound | ConcurrentUpdate>, Store] => {
        const stored = current.rows.get(id)
        if (stored === undefined) return [Effect.fail(new ChallengeNotFound({ challengeId: id })), current]
        if (stored.version !== expectedVersion) {
          return [Effect.fail(new ConcurrentUpdate({ challengeId: id, expectedVersion })), current]
        }
        const updated = new Challenge({
          ...input,
          id,
          version: stored.version + 1,
          createdAt: stored.createdAt,
          updatedAt: at
        })
        return [Effect.succeed(updated), { ...current, rows: new Map(current.rows).set(id, updated) }]
      })
    )

  return ChallengeRepository.of({ create, findById, list, update })
})

/** A fresh, empty in-memory `ChallengeRepository` per build. */
export const layerMemory: Layer.Layer<ChallengeRepository> = Layer.effect(ChallengeRepository, makeMemoryRepository)
