/**
 * arXiv's OAI-PMH sets and the categories they hold. A set is an archive
 * group: `cs`, `math`, `stat`, `q-bio`, `q-fin`, `econ`, `eess`, and the
 * physics archives as `physics:<archive>` (`physics:hep-th`,
 * `physics:astro-ph`, ...). Harvesting `cs.LG` means harvesting the set `cs`
 * and keeping the records that carry `cs.LG`.
 *
 * Pure code.
 *
 * @since 0.3.0
 */

/** Archive groups that are a set of their own. */
const GROUP_SETS: ReadonlySet<string> = new Set(["cs", "econ", "eess", "math", "q-bio", "q-fin", "stat"])

/** The physics archives, each the set `physics:<archive>`. */
const PHYSICS_ARCHIVES: ReadonlySet<string> = new Set([
  "astro-ph",
  "cond-mat",
  "gr-qc",
  "hep-ex",
  "hep-lat",
  "hep-ph",
  "hep-th",
  "math-ph",
  "nlin",
  "nucl-ex",
  "nucl-th",
  "physics",
  "quant-ph"
])

/** Every set arXiv's OAI-PMH server lists (ListSets), the `physics` group included. */
export const ALL_SETS: ReadonlyArray<string> = [
  ...GROUP_SETS,
  "physics",
  ...[...PHYSICS_ARCHIVES].map((a) => `physics:${a}`)
].sort()

/** The set holding a category (`cs.LG` → `cs`, `hep-th` → `physics:hep-th`); undefined for an unknown archive. */
export const setOfCategory = (category: string): string | undefined => {
  const archive = category.split(".")[0]!
  if (GROUP_SETS.has(archive)) return archive
  if (PHYSICS_ARCHIVES.has(archive)) return `physics:${archive}`
  return undefined
}

/** A set name as arXiv spells it. */
export const isSet = (set: string): boolean => ALL_SETS.includes(set)

/** What to harvest: sets to ask for, and the categories to keep (none: keep every record of the sets). */
export interface HarvestScope {
  readonly sets: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
}

/**
 * The scope of `--categories` or `--sets` (exactly one given): the sets the
 * categories live in, or the sets as given. A string is what is wrong.
 */
export const harvestScope = (
  input: { readonly categories?: ReadonlyArray<string> | undefined; readonly sets?: ReadonlyArray<string> | undefined }
): HarvestScope | string => {
  const categories = input.categories ?? []
  const sets = input.sets ?? []
  if (categories.length > 0 && sets.length > 0) return "give --categories or --sets, not both"
  if (categories.length === 0 && sets.length === 0) {
    return "say what to mirror: --categories cs.LG,cs.CL (the sets they live in are harvested, then filtered) or --sets cs,stat"
  }
  if (sets.length > 0) {
    const unknown = sets.filter((s) => !isSet(s))
    if (unknown.length > 0) return `unknown set${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; arXiv's sets are ${ALL_SETS.join(", ")}`
    return { sets: [...new Set(sets)].sort(), categories: [] }
  }
  const unknown = categories.filter((c) => setOfCategory(c) === undefined)
  if (unknown.length > 0) {
    return `unknown categor${unknown.length > 1 ? "ies" : "y"} ${unknown.join(", ")}; use arXiv's codes, e.g. cs.LG, stat.ML, hep-th, math.AG`
  }
  return { sets: [...new Set(categories.map((c) => setOfCategory(c)!))].sort(), categories: [...new Set(categories)].sort() }
}
