/**
 * The judge data the evaluation scripts use: the shipped IDF table and term
 * vectors, or, to compare alternatives, modules written by
 * build-df-table.ts / build-term-vectors.ts with OUT= and named by DF= / TV=
 * (paths relative to the working directory).
 */
import { arxivDfTable, unpackDfTable } from "../src/adapters/judge/dfTable.js"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { DfTable, TermVectors } from "../src/adapters/judge/score.js"
import { arxivTermVectors, unpackTermVectors } from "../src/adapters/judge/termVectors.js"

/** The shipped IDF table, or the module named by DF. */
export const loadTable = async (): Promise<DfTable> => {
  if (!process.env.DF) return arxivDfTable()
  const { packedDfTable } = await import(pathToFileURL(resolve(process.env.DF)).href)
  return unpackDfTable(packedDfTable)
}

/** The shipped term vectors, or the module named by TV. */
export const loadVectors = async (): Promise<TermVectors> => {
  if (!process.env.TV) return arxivTermVectors()
  const { packedTermVectors } = await import(pathToFileURL(resolve(process.env.TV)).href)
  return unpackTermVectors(packedTermVectors)
}
