/**
 * The companion's ways of finding candidates, and their merge.
 *
 * - `arxiv-search`: the arXiv search for the note's keywords;
 * - `arxiv-title`: the second arXiv search, for papers whose title names the
 *   note's central concepts (among those the first query matches) or that use
 *   the terms the first search's best papers share and the note does not;
 * - `arxiv-author`: the same search's papers by an author the note cites
 *   ("Duan et al", "the Bahdanau paper");
 * - `most-cited`: the most cited works with an arXiv location for the note's
 *   key phrases (OpenAlex live, the recorded counts offline).
 *
 * @since 0.2.0
 */
import { parseArxivId } from "./arxiv.js"
import { Impact, Paper } from "./models.js"
import type { CitedPaper } from "./ports/OpenAlexPort.js"

/** Which channel found a candidate. */
export type Channel = "arxiv-search" | "arxiv-title" | "arxiv-author" | "most-cited"

/** How a channel is named to a reader. */
export const CHANNEL_LABELS: Record<Channel, string> = {
  "arxiv-search": "arXiv search",
  "arxiv-title": "arXiv title search on the note's central concepts and related terms",
  "arxiv-author": "arXiv search for the authors the note cites",
  "most-cited": "most cited on the note's phrases"
}

/** The candidates of every channel, each once, with the channels that found it and the impacts that came along. */
export interface MergedCandidates {
  readonly papers: ReadonlyArray<Paper>
  /** bare arXiv id → the channels that found the paper, in channel order */
  readonly channels: ReadonlyMap<string, ReadonlyArray<Channel>>
  /** bare arXiv id → the impact the most-cited channel ranked the paper by */
  readonly impacts: ReadonlyMap<string, Impact>
}

/** A paper's id without its version: `1409.0473v2` and `1409.0473` are one paper. */
export const bareId = (arxivId: string): string => parseArxivId(arxivId)?.id ?? arxivId.trim()

/**
 * Merge the arXiv search's papers with the title search's and the most cited
 * ones, de-duplicated by arXiv id with versions folded. Order: the search's
 * papers as ranked, then the title search's it did not find, as ranked, then
 * the most-cited papers neither found, most cited first. A paper several
 * channels found keeps the first one's record (an arXiv search's: arXiv's own
 * metadata and categories) and every label, in channel order; every
 * candidate's `arxivId` is its bare id.
 */
export const mergeChannels = (
  searched: ReadonlyArray<Paper>,
  cited: ReadonlyArray<CitedPaper>,
  titled: ReadonlyArray<Paper> = [],
  authored: ReadonlyArray<Paper> = []
): MergedCandidates => {
  const papers: Array<Paper> = []
  const channels = new Map<string, Array<Channel>>()
  const impacts = new Map<string, Impact>()
  const add = (paper: Paper, channel: Channel) => {
    const id = bareId(paper.arxivId)
    const seen = channels.get(id)
    if (seen !== undefined) {
      if (!seen.includes(channel)) seen.push(channel)
      return
    }
    channels.set(id, [channel])
    papers.push(paper.arxivId === id ? paper : new Paper({ ...paper, arxivId: id }))
  }
  for (const p of searched) add(p, "arxiv-search")
  for (const p of titled) add(p, "arxiv-title")
  for (const p of authored) add(p, "arxiv-author")
  for (const c of cited) {
    add(c.paper, "most-cited")
    const id = bareId(c.paper.arxivId)
    if (!impacts.has(id)) impacts.set(id, c.impact.arxivId === id ? c.impact : new Impact({ ...c.impact, arxivId: id }))
  }
  return { papers, channels, impacts }
}
