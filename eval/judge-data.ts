/**
 * The judge data the evaluation scripts use: the shipped IDF table and term
 * vectors (data/judge/), or, to compare alternatives, files written by
 * build-df-table.ts / build-term-vectors.ts with OUT= and named by DF= / TV=
 * (paths relative to the working directory).
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { arxivDfTable, type PackedDfTable, unpackDfTable } from "../src/adapters/judge/dfTable.js"
import type { DfTable, TermVectors } from "../src/adapters/judge/score.js"
import { arxivTermVectors, type PackedTermVectors, unpackTermVectors } from "../src/adapters/judge/termVectors.js"

const readJson = <A>(file: string): A => JSON.parse(readFileSync(resolve(file), "utf8")) as A

/** The shipped IDF table, or the file named by DF. */
export const loadTable = async (): Promise<DfTable> =>
  process.env.DF ? unpackDfTable(readJson<PackedDfTable>(process.env.DF)) : arxivDfTable()

/** The shipped term vectors, or the file named by TV. */
export const loadVectors = async (): Promise<TermVectors> =>
  process.env.TV ? unpackTermVectors(readJson<PackedTermVectors>(process.env.TV)) : arxivTermVectors()
