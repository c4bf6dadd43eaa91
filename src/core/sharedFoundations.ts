/**
 * The foundations the kept papers share: works cited by two or more of them,
 * from the reference lists the run already looked up (no extra request).
 *
 * @since 0.2.0
 */
import { SharedFoundation, type SharedFoundations, type Work } from "./models.js"

/** A kept paper and the works it cites. */
export interface PaperReferences {
  readonly arxivId: string
  /** OpenAlex ids of the works it cites; undefined when no reference list is recorded. */
  readonly references: ReadonlyArray<string> | undefined
}

/** How many shared foundations are listed at most. */
export const SHARED_FOUNDATIONS_LIMIT = 10

/**
 * Works cited by at least two of `papers`, ranked by how many of them cite
 * the work, then by the work's own citation count (unresolved works, whose
 * count is unknown, after resolved ones), then by id. Each lists the papers
 * citing it in the order of `papers`.
 */
export const sharedFoundations = (
  papers: ReadonlyArray<PaperReferences>,
  works: ReadonlyMap<string, Work>,
  limit: number = SHARED_FOUNDATIONS_LIMIT
): SharedFoundations => {
  const withReferences = papers.filter((p) => p.references !== undefined && p.references.length > 0)
  const citing = new Map<string, Array<string>>()
  for (const paper of withReferences) {
    for (const id of new Set(paper.references)) {
      const list = citing.get(id) ?? []
      if (!list.includes(paper.arxivId)) list.push(paper.arxivId)
      citing.set(id, list)
    }
  }
  const shared = [...citing.entries()]
    .filter(([, by]) => by.length >= 2)
    .map(([id, by]) => {
      const work = works.get(id)
      return new SharedFoundation({
        openalexId: id,
        ...(work === undefined ? {} : {
          title: work.title,
          citedByCount: work.citedByCount,
          ...(work.publicationYear === undefined ? {} : { publicationYear: work.publicationYear }),
          ...(work.arxivId === undefined ? {} : { arxivId: work.arxivId })
        }),
        citedBy: by
      })
    })
    .sort((a, b) =>
      b.citedBy.length - a.citedBy.length ||
      (b.citedByCount ?? -1) - (a.citedByCount ?? -1) ||
      a.openalexId.localeCompare(b.openalexId)
    )
    .slice(0, Math.max(0, limit))
  const status = withReferences.length === 0
    ? "not-recorded"
    : withReferences.length === 1
    ? "one-list"
    : shared.length === 0
    ? "none-shared"
    : "found"
  return { status, withReferences: withReferences.length, foundations: shared }
}

/** One plain sentence for a result with no shared foundation; undefined when some were found. */
export const sharedFoundationsGap = (result: SharedFoundations, kept: number): string | undefined => {
  switch (result.status) {
    case "found":
      return undefined
    case "not-recorded":
      return kept === 0
        ? "No paper was kept, so there is nothing to compare."
        : `No reference list is recorded for ${kept === 1 ? "the kept paper" : `any of the ${kept} kept papers`}, so shared foundations cannot be shown.`
    case "one-list":
      return kept === 1
        ? "Only one paper was kept; shared foundations need two with reference lists."
        : `Only one of the ${kept} kept papers has a recorded reference list; shared foundations need two.`
    case "none-shared":
      return `The ${result.withReferences} kept papers with recorded reference lists cite no work in common.`
  }
}
