// Plain JavaScript on purpose: it must run (and refuse) on any Node, even one that cannot strip types.
// npm puts node_modules/.bin first on PATH, so scripts run the pinned `node` package (Node 24). An
// install with --ignore-scripts skips that package's own install step and leaves the machine's Node.
const [major] = process.versions.node.split(".").map(Number)
if (major < 24) {
  console.error(
    `\n  payments-gaming needs Node 24 or newer; this is Node ${process.versions.node} (${process.execPath}).\n` +
      "  Run the scripts through npm (npm start, npm test) after a plain `npm ci`: it installs Node 24 from the\n" +
      "  pinned `node` package. An install with --ignore-scripts skips that step.\n"
  )
  process.exit(1)
}
