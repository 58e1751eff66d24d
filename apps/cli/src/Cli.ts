import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { configErrorMessage } from "@payments-gaming/adapters/config/ConfigErrorMessage"
import { Cause, Config, Effect, Exit, Runtime } from "effect"
import { CliError, Command } from "effect/cli"
import packageJson from "../package.json" with { type: "json" }
import { db } from "./DbCommand.ts"
import { ledger } from "./LedgerCommand.ts"
import { notifications } from "./NotificationsCommand.ts"
import { push } from "./PushCommand.ts"
import { reconcile } from "./ReconcileCommand.ts"
import { signalStopIsClean, UsageError } from "./Runtime.ts"
import { serve } from "./ServeCommand.ts"
import { printError } from "./TerminalText.ts"
import { token } from "./TokenCommand.ts"
import * as UsagePresenter from "./UsagePresenter.ts"
import { virtualAccount } from "./VirtualAccountCommand.ts"
import { wallet } from "./WalletCommand.ts"
import { webhook } from "./WebhookCommand.ts"

const root = Command.make("payments-gaming").pipe(
  Command.withDescription("Payments and gaming service: server and operator commands"),
  Command.withSubcommands([serve, db, token, push, webhook, virtualAccount, wallet, notifications, ledger, reconcile])
)

/** Exit codes: 0 success, 1 the command failed, 2 bad usage (unknown command, missing or bad flag). */
const program = Command.run(root, { version: packageJson.version }).pipe(
  Effect.catchCause((cause) => {
    const failure = Cause.squash(cause)
    if (CliError.isCliError(failure)) {
      // Help asked for is a success; help shown because of a parse error is bad usage.
      process.exitCode = failure._tag === "ShowHelp" && failure.errors.length === 0 ? 0 : 2
      return Effect.void
    }
    process.exitCode = failure instanceof UsageError ? 2 : 1
    const message =
      failure instanceof Config.ConfigError
        ? configErrorMessage(failure)
        : failure instanceof Error
          ? failure.message
          : String(failure)
    // The message may quote what the service or a provider said: printed without its escapes.
    return printError(`error: ${message}`)
  }),
  Effect.provide([NodeServices.layer, UsagePresenter.layer])
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) && signalStopIsClean()
      ? onExit(0)
      : Runtime.defaultTeardown(exit, onExit)
})
