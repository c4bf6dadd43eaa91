/**
 * Vitest setup: property tests at their usual cost, unless a deeper hunt is
 * asked for. `FC_NUM_RUNS=2000` runs every `it.prop` (and `fc.assert`) that
 * does not set its own count that many times; `FC_SEED=n` replays one seed
 * (the seed a failure prints). Neither is set in CI. With FC_NUM_RUNS a test
 * may take up to 30 minutes.
 */
import { FastCheck as fc } from "effect"
import { vi } from "vitest"

const numRuns = process.env.FC_NUM_RUNS === undefined ? undefined : Number(process.env.FC_NUM_RUNS)
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED)
if (numRuns !== undefined || seed !== undefined) {
  fc.configureGlobal({ ...(numRuns === undefined ? {} : { numRuns }), ...(seed === undefined ? {} : { seed }) })
  // a deep hunt takes minutes where the suite allows a property 30 s
  if (numRuns !== undefined) vi.setConfig({ testTimeout: 30 * 60_000 })
}

/** A property's own run count, or FC_NUM_RUNS when a deeper hunt asks for more. */
export const propertyRuns = (usual: number): number => Math.max(usual, numRuns ?? 0)
