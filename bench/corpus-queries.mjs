/**
 * The corpus queries the footprint bench and the offline-engines bench time: distinct words (each a new term in a
 * fresh process), in arXiv syntax, as a person types them into the search tool.
 */
export const QUERIES = [
  "(all:attention OR all:\"neural machine translation\" OR all:sequence OR all:transformer) AND (cat:cs.LG OR cat:cs.CL)",
  "all:\"generative adversarial\" AND all:discriminator",
  "ti:reinforcement AND abs:policy",
  "all:dropout OR all:regularization",
  "abs:\"batch normalization\" OR all:covariate",
  "all:convolutional AND all:segmentation"
]
