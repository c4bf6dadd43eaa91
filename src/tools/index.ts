/**
 * The library-level tools: the functions behind the MCP server's tools (and
 * the CLI's tool commands), each an Effect over the ports.
 *
 * @since 0.1.0
 */
export * from "./ask.js"
export * from "./citations.js"
export * from "./companion.js"
export * from "./digest.js"
export * from "./papers.js"
export * from "./preview.js"
export * from "./readPaper.js"
export * from "./schemas.js"
export * from "./trends.js"
