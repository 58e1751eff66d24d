import { CliOutput } from "effect/cli"
import { printError } from "./TerminalText.ts"

/**
 * How a command line that cannot run is told: on stderr, one line per problem (the first line of
 * its message: suggestions stay out) and a pointer to the command's help, so that
 * `TOKEN=$(payments-gaming token mint)` captures nothing but a token, and a script's log shows the
 * mistake rather than 25 lines of help. Help asked for, and the version, still go to stdout.
 */
export const UsagePresenter: CliOutput.Presenter = {
  present: (event) => {
    if (event._tag !== "InvalidInvocation") return CliOutput.defaultPresenter.present(event)
    const command = event.commandPath.join(" ")
    const lines = event.errors.map((error) => `error: ${firstLine(error.message)}${didYouMean(error)}`)
    return printError([...lines, `Run '${command} --help' for usage.`].join("\n"))
  }
}

const firstLine = (message: string) => message.split("\n", 1)[0]?.trim() ?? message

// An unknown command or flag carries its nearest names; they fit on the same line.
const didYouMean = (error: object) => {
  const suggestions = "suggestions" in error && Array.isArray(error.suggestions) ? error.suggestions : []
  return suggestions.length === 0 ? "" : ` (did you mean ${suggestions.join(" or ")}?)`
}

export const layer = CliOutput.layerPresenter(UsagePresenter)
