import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import { AccountNumber, BankingService, LinkVirtualAccountRequest } from "@payments-gaming/domain/banking"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { decodeFlag, decodeOptionalFlag } from "./FlagValue.ts"
import * as ServiceClient from "./ServiceClient.ts"
import { printText } from "./TerminalText.ts"

const linkDirectly = (accountNumber: string, request: LinkVirtualAccountRequest) =>
  Effect.gen(function* () {
    // Loaded only when the command runs: --help and the other commands never pay for the database.
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* BankingService.use((banking) => banking.linkVirtualAccount(accountNumber, request)).pipe(
      Effect.provide(Commands.Banking)
    )
  })

/** The same link through the service that owns the embedded database (PUT /v1/admin/virtual-accounts). */
const linkThroughService = (baseUrl: string, accountNumber: string, request: LinkVirtualAccountRequest) =>
  ServiceClient.call(baseUrl, (api) =>
    api.bankingAdmin.linkVirtualAccount({ params: { accountNumber }, payload: request })
  ).pipe(
    // The envelope's status is the answer's: 201 for a new link, 200 for the same link again.
    Effect.map((answer) => ({ created: answer.status === 201, account: answer.data }))
  )

const link = Command.make(
  "link",
  {
    number: Flag.String("number").pipe(Flag.withDescription("The provider's virtual account number")),
    user: Flag.String("user").pipe(Flag.withDescription("The user whose wallet its credits go to")),
    currency: Flag.String("currency").pipe(Flag.withDescription("ISO 4217 code the account is held in, e.g. NGN")),
    name: Flag.String("name").pipe(Flag.optional, Flag.withDescription("Account name, as the provider shows it")),
    bank: Flag.String("bank").pipe(Flag.optional, Flag.withDescription("Bank name, as the provider shows it")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))
  },
  ({ number, user, currency, name, bank, json }) =>
    Effect.gen(function* () {
      const fields = LinkVirtualAccountRequest.fields
      const accountNumber = yield* decodeFlag(AccountNumber, number, "--number", "1 to 64 letters, digits or dashes")
      const accountName = yield* decodeOptionalFlag(fields.accountName, name, "--name", "at most 200 characters")
      const bankName = yield* decodeOptionalFlag(fields.bankName, bank, "--bank", "at most 200 characters")
      const request: LinkVirtualAccountRequest = {
        userId: yield* decodeFlag(fields.userId, user, "--user", "a user id of 1 to 128 characters"),
        currency: yield* decodeFlag(
          fields.currency,
          currency,
          "--currency",
          "a supported ISO 4217 code in capitals, e.g. NGN"
        ),
        ...(accountName === undefined ? {} : { accountName }),
        ...(bankName === undefined ? {} : { bankName })
      }
      // Input is checked before the database is opened; a conflict (linked to another user or
      // currency) fails the command with its message: exit 1.
      const backend = yield* Backend.resolve
      const { created, account } =
        backend._tag === "Service"
          ? yield* linkThroughService(backend.url, accountNumber, request)
          : yield* linkDirectly(accountNumber, request)
      if (json) {
        yield* Console.log(JSON.stringify({ created, account }))
      } else {
        const what = `${account.accountNumber} to ${account.userId} (${account.currency})`
        yield* printText(created ? `created: linked ${what}` : `already linked: ${what}`)
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Link a provider virtual account number to a user's wallet (as PUT /v1/admin/virtual-accounts/{n}); " +
      "linking it again the same way is a no-op"
  ),
  Command.withExamples([
    {
      command: "payments-gaming virtual-account link --number 9900112233 --user user-1 --currency NGN",
      description: "Credits to 9900112233 go to user-1's NGN wallet"
    }
  ])
)

export const virtualAccount = Command.make("virtual-account").pipe(
  Command.withDescription("Provider virtual accounts and the users they belong to"),
  Command.withSubcommands([link])
)
