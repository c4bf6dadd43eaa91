/**
 * The package's version, as package.json says it: read at build time (the
 * bundle inlines it), so the CLI's `--version`, the MCP server's
 * `serverInfo`, the MCP client the vault adapter opens and the User-Agent all
 * announce the version that was published.
 *
 * @since 0.1.0
 */
import pkg from "../package.json" with { type: "json" }

/** The version in package.json. */
export const VERSION: string = pkg.version
