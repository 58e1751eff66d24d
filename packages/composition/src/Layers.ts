// The use cases of the service on the adapters behind their ports, said once: each port's adapter
// is named here and nowhere else (adapters implement one port each and compose nothing). Serving.ts
// and Commands.ts finish this graph for the HTTP app and for the CLI; tests take use cases from here.

import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import * as CreditCardTypeBrandDetector from "@payments-gaming/adapters/cards/CreditCardTypeBrandDetector"
import * as HmacCardFingerprinter from "@payments-gaming/adapters/cards/HmacCardFingerprinter"
import * as SealSettingsConfig from "@payments-gaming/adapters/ledger/SealSettingsConfig"
import * as StatementIdCipher from "@payments-gaming/adapters/ledger/StatementIdCipher"
import * as NotificationSettingsConfig from "@payments-gaming/adapters/notifications/NotificationSettingsConfig"
import * as BankingDeadLetters from "@payments-gaming/adapters/postgres/BankingDeadLetters"
import * as CardRepositoryPg from "@payments-gaming/adapters/postgres/CardRepository"
import * as ChallengeRepositoryPg from "@payments-gaming/adapters/postgres/ChallengeRepository"
import * as DevicesPostgres from "@payments-gaming/adapters/postgres/DevicesPostgres"
import * as LedgerPostgres from "@payments-gaming/adapters/postgres/LedgerPostgres"
import * as LedgerRecorderPostgres from "@payments-gaming/adapters/postgres/LedgerRecorderPostgres"
import * as LedgerSealsPostgres from "@payments-gaming/adapters/postgres/LedgerSealsPostgres"
import * as LedgerStatementPostgres from "@payments-gaming/adapters/postgres/LedgerStatementPostgres"
import * as LedgerUnitOfWork from "@payments-gaming/adapters/postgres/LedgerUnitOfWork"
import * as NotificationOutboxPostgres from "@payments-gaming/adapters/postgres/NotificationOutboxPostgres"
import * as PushDeliveryRepository from "@payments-gaming/adapters/postgres/PushDeliveryRepository"
import * as ReconciliationsPostgres from "@payments-gaming/adapters/postgres/ReconciliationsPostgres"
import * as SpinRepositoryPg from "@payments-gaming/adapters/postgres/SpinRepository"
import * as TransfersPostgres from "@payments-gaming/adapters/postgres/TransfersPostgres"
import * as VirtualAccountsPostgres from "@payments-gaming/adapters/postgres/VirtualAccountsPostgres"
import * as WebhookInboxPostgres from "@payments-gaming/adapters/postgres/WebhookInboxPostgres"
import * as WheelClientSeeds from "@payments-gaming/adapters/postgres/WheelClientSeeds"
import * as WheelRepositoryPg from "@payments-gaming/adapters/postgres/WheelRepository"
import * as WheelRoundSeeds from "@payments-gaming/adapters/postgres/WheelRoundSeeds"
import * as PushGatewaysLive from "@payments-gaming/adapters/push/PushGatewaysLive"
import * as CryptoWheelRandom from "@payments-gaming/adapters/wheel/CryptoWheelRandom"
import * as NodeSeedCrypto from "@payments-gaming/adapters/wheel/NodeSeedCrypto"
import * as WheelSettingsConfig from "@payments-gaming/adapters/wheel/WheelSettingsConfig"
import { BankingService, layerCachedVirtualAccounts, WebhookEventsService } from "@payments-gaming/domain/banking"
import { CardsService } from "@payments-gaming/domain/cards"
import { Devices as DevicesPort } from "@payments-gaming/domain/devices"
import { SealService, SealWorker, StatementService } from "@payments-gaming/domain/ledger"
import { NotificationDelivery, NotificationsService, NotificationWorker } from "@payments-gaming/domain/notifications"
import type { PushGateways } from "@payments-gaming/domain/push"
import { PushService } from "@payments-gaming/domain/push"
import { ReconciliationService } from "@payments-gaming/domain/reconciliation"
import { TriviaService } from "@payments-gaming/domain/trivia"
import {
  layerWheelCaches,
  SpinAndWinService,
  type SpinRepository,
  type WheelRandom
} from "@payments-gaming/domain/wheel"
import { Context, Layer } from "effect"
import type { SqlClient } from "effect/sql"

// Every layer below needs the ambient `SqlClient` (see postgres/Database.ts) and reads its settings
// from the ambient configuration. Each use case keeps its own ports reachable beside it, so tests
// and tools can look at what it stored.

/**
 * The ledger, its recorder (the one writer of a posting with its cause) and its unit of work on
 * PostgreSQL. Banking and the wheel need it and do not build it: it is provided once, below, to
 * both, so every posting goes to one ledger.
 */
export const Ledger = Layer.mergeAll(LedgerPostgres.layer, LedgerRecorderPostgres.layer, LedgerUnitOfWork.layer)

/** Webhook intake, wallets, statements and transfers, and the operators' webhook-event views. Needs `Ledger`. */
export const Banking = Layer.mergeAll(
  // Credits read their virtual account through a cache (VirtualAccountCache.ts); the store stays
  // reachable, uncached, beside the services.
  BankingService.layer.pipe(Layer.provide(layerCachedVirtualAccounts)),
  WebhookEventsService.layer,
  StatementService.layer
).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      WebhookInboxPostgres.layer,
      BankingDeadLetters.layer,
      VirtualAccountsPostgres.layer,
      TransfersPostgres.layer,
      LedgerStatementPostgres.layer,
      // Statement ids and cursors sealed per user (issue 34), keyed from CARD_FINGERPRINT_KEY.
      StatementIdCipher.layerConfig,
      // A credit writes its notification with its posting (notification_outbox).
      NotificationOutboxPostgres.layer
    )
  )
)

/**
 * The wheel on PostgreSQL and `node:crypto`, drawing with `random`, with the currency and zone from
 * `DEFAULT_CURRENCY` and `WHEEL_TIMEZONE`. Needs `Ledger`. Tests give a deterministic `random`, and
 * may give their own `spins` store (one that pins the database's clock to a TestClock's, say).
 */
export const spinAndWinWith = <E, R>(
  random: Layer.Layer<WheelRandom, E, R>,
  spins: Layer.Layer<SpinRepository, never, SqlClient.SqlClient> = SpinRepositoryPg.layer
) =>
  SpinAndWinService.layer.pipe(
    // The caches sit between the use case and its stores only: the stores reachable beside the
    // service are the uncached ones, and each build of this layer has its own caches.
    Layer.provide(layerWheelCaches),
    Layer.provideMerge(
      Layer.mergeAll(
        WheelRepositoryPg.layer,
        spins,
        WheelRoundSeeds.layer,
        WheelClientSeeds.layer,
        NodeSeedCrypto.layer,
        random,
        WheelSettingsConfig.layerConfig,
        // A prize's notification is written in the spin's own statement (LedgerRecorder.record).
        NotificationOutboxPostgres.layer
      )
    )
  )

/** The wheel drawing with the operating system's CSPRNG. Needs `Ledger`. */
export const SpinAndWin = spinAndWinWith(CryptoWheelRandom.layer)

/** Card registration: brand detection from credit-card-type, fingerprints keyed by CARD_FINGERPRINT_KEY. */
export const Cards = CardsService.layer.pipe(
  Layer.provideMerge(CardRepositoryPg.layer),
  Layer.provide([CreditCardTypeBrandDetector.layer, HmacCardFingerprinter.layerConfig])
)

/** The users' push devices (`Devices`) on PostgreSQL: registered over HTTP, read by the notification outbox. */
export const Devices = DevicesPostgres.layer

/** Trivia challenges on PostgreSQL. */
export const Trivia = TriviaService.layer.pipe(Layer.provideMerge(ChallengeRepositoryPg.layer))

/**
 * Push through `gateways`, recording every attempt in PostgreSQL; what `gateways` provides beside
 * `PushGateways` (the development sink, a test's fake) stays reachable.
 */
export const pushWith = <ROut, E, R>(gateways: Layer.Layer<PushGateways | ROut, E, R>) =>
  PushService.layer.pipe(Layer.provideMerge(PushDeliveryRepository.layer), Layer.provideMerge(gateways))

/** Push through the configured gateways (FCM_*, APNS_*), or the development sink for the others. */
export const Push = pushWith(PushGatewaysLive.layerConfig)

/** The operators' view of the notification outbox (list, retry), on PostgreSQL. */
export const Notifications = NotificationsService.layer.pipe(Layer.provideMerge(NotificationOutboxPostgres.layer))

/**
 * The notification worker (a scoped layer: it delivers for as long as it is built) sending through
 * `push`, deactivating dead tokens' devices, with the settings of NOTIFICATIONS_*. Tests give a
 * `push` on fake providers.
 */
export const notificationsWorkerWith = <E, R>(push: Layer.Layer<PushService, E, R>) =>
  // Fresh: layers are shared by reference within a build, so a second worker in one build (a
  // test's beside the app's) would otherwise get the first one's settings. `push` stays shared.
  Layer.fresh(
    NotificationWorker.layer.pipe(
      Layer.provide(NotificationDelivery.layer),
      Layer.provide(
        Layer.mergeAll(NotificationOutboxPostgres.layer, DevicesPostgres.layer, NotificationSettingsConfig.layerConfig)
      )
    )
  ).pipe(Layer.provide(push))

/** The worker on the configured push providers (the same `Push` the service sends with). */
export const NotificationsWorker = notificationsWorkerWith(Push)

/**
 * The sealed ledger (docs/ledger-seals.md): seals on PostgreSQL (which computes each seal), SHA-256
 * on `node:crypto` for verify (synchronous: a twentieth of WebCrypto's per-call cost, which verify
 * pays per transaction). Reads the ledger's tables itself; needs no `Ledger`.
 */
export const Seals = SealService.layer.pipe(
  Layer.provideMerge(LedgerSealsPostgres.layer),
  Layer.provide(NodeCrypto.layerDigest)
)

/**
 * The background sealer (a scoped layer: it seals for as long as it is built) every
 * LEDGER_SEAL_INTERVAL, unless LEDGER_SEALER=off. Every instance runs one; one seals at a time.
 */
export const SealsWorker = Layer.fresh(
  SealWorker.layer.pipe(Layer.provide(Seals), Layer.provide(SealSettingsConfig.layerConfig))
)

/**
 * Settlement reconciliation (CONTRACT §7): `ReconciliationService` on PostgreSQL, its store and
 * the ports a `credit` resolve needs (virtual accounts, uncached: a resolve is rare and must see
 * the link as it is; the notification outbox). Needs `Ledger`: a credit posts to the one ledger.
 */
export const Reconciliation = ReconciliationService.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(ReconciliationsPostgres.layer, VirtualAccountsPostgres.layer, NotificationOutboxPostgres.layer)
  )
)

/** Every use case of the service, on one shared ledger. */
export const UseCases = Layer.mergeAll(
  Banking,
  SpinAndWin,
  Cards,
  Devices,
  Trivia,
  Push,
  Notifications,
  // Every instance delivers (NOTIFICATIONS_WORKER=off to stop it); claims keep instances apart.
  NotificationsWorker,
  Seals,
  SealsWorker,
  Reconciliation
).pipe(Layer.provide(Ledger))

/**
 * `UseCases` as the HTTP app is given them: the use cases alone, the ports beside them left out
 * (tests that look at what a use case stored build `UseCases` itself). A handler can then reach a
 * port only through its use case, which the types enforce where the service is launched. It is
 * also less to copy: every request copies its context at least once (HttpApiBuilder provides the
 * handlers' context into it on each request), and a request's context holds 32 services instead of
 * 50 (33 and 52 since the sealed ledger's `SealService` and `LedgerSeals`). Interleaved runs against the app given `UseCases` (issue 16): GET 1.08 and 1.17; the write
 * paths within the machine's noise (cards 1.12, 0.90, 0.95; credits 0.94, 1.00; spins 1.01). The
 * notification worker and the sealer run as before: they provide no service.
 */
export const ServedUseCases = Layer.flatMap(UseCases, (context) =>
  Layer.succeedContext(
    Context.pick(
      BankingService,
      WebhookEventsService,
      StatementService,
      SpinAndWinService,
      CardsService,
      DevicesPort,
      TriviaService,
      PushService,
      NotificationsService,
      SealService,
      ReconciliationService
    )(context)
  )
)
