import { Data } from "effect"

/** A flag value that parses but makes no sense (exit code 2, like any other usage error). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

let signalStopsCleanly = false

/**
 * Called by a command that runs until it is stopped (`serve`): a SIGTERM or SIGINT is then how it
 * is meant to end, exit 0 as for the server's own entry point (apps/http/src/RunService.ts), so an
 * orchestrator does not count a deploy as a crash. Other commands interrupted by a signal keep the
 * shell's 130.
 */
export const stopOnSignalIsClean = () => {
  signalStopsCleanly = true
}

export const signalStopIsClean = () => signalStopsCleanly
