/**
 * The arXiv category taxonomy (https://arxiv.org/category_taxonomy), as data.
 *
 * @since 0.1.0
 */
import { levenshtein } from "./text.js"

/** One arXiv category: its code (as used in `cat:` queries), name and group. */
export interface ArxivCategory {
  readonly code: string
  readonly name: string
  readonly group: string
}

const group = (name: string, entries: ReadonlyArray<readonly [string, string]>): ReadonlyArray<ArxivCategory> =>
  entries.map(([code, n]) => ({ code, name: n, group: name }))

/** Every current arXiv category, grouped as arXiv groups them. */
export const ARXIV_CATEGORIES: ReadonlyArray<ArxivCategory> = [
  ...group("Computer Science", [
    ["cs.AI", "Artificial Intelligence"],
    ["cs.AR", "Hardware Architecture"],
    ["cs.CC", "Computational Complexity"],
    ["cs.CE", "Computational Engineering, Finance, and Science"],
    ["cs.CG", "Computational Geometry"],
    ["cs.CL", "Computation and Language"],
    ["cs.CR", "Cryptography and Security"],
    ["cs.CV", "Computer Vision and Pattern Recognition"],
    ["cs.CY", "Computers and Society"],
    ["cs.DB", "Databases"],
    ["cs.DC", "Distributed, Parallel, and Cluster Computing"],
    ["cs.DL", "Digital Libraries"],
    ["cs.DM", "Discrete Mathematics"],
    ["cs.DS", "Data Structures and Algorithms"],
    ["cs.ET", "Emerging Technologies"],
    ["cs.FL", "Formal Languages and Automata Theory"],
    ["cs.GL", "General Literature"],
    ["cs.GR", "Graphics"],
    ["cs.GT", "Computer Science and Game Theory"],
    ["cs.HC", "Human-Computer Interaction"],
    ["cs.IR", "Information Retrieval"],
    ["cs.IT", "Information Theory"],
    ["cs.LG", "Machine Learning"],
    ["cs.LO", "Logic in Computer Science"],
    ["cs.MA", "Multiagent Systems"],
    ["cs.MM", "Multimedia"],
    ["cs.MS", "Mathematical Software"],
    ["cs.NA", "Numerical Analysis"],
    ["cs.NE", "Neural and Evolutionary Computing"],
    ["cs.NI", "Networking and Internet Architecture"],
    ["cs.OH", "Other Computer Science"],
    ["cs.OS", "Operating Systems"],
    ["cs.PF", "Performance"],
    ["cs.PL", "Programming Languages"],
    ["cs.RO", "Robotics"],
    ["cs.SC", "Symbolic Computation"],
    ["cs.SD", "Sound"],
    ["cs.SE", "Software Engineering"],
    ["cs.SI", "Social and Information Networks"],
    ["cs.SY", "Systems and Control"]
  ]),
  ...group("Economics", [
    ["econ.EM", "Econometrics"],
    ["econ.GN", "General Economics"],
    ["econ.TH", "Theoretical Economics"]
  ]),
  ...group("Electrical Engineering and Systems Science", [
    ["eess.AS", "Audio and Speech Processing"],
    ["eess.IV", "Image and Video Processing"],
    ["eess.SP", "Signal Processing"],
    ["eess.SY", "Systems and Control"]
  ]),
  ...group("Mathematics", [
    ["math.AC", "Commutative Algebra"],
    ["math.AG", "Algebraic Geometry"],
    ["math.AP", "Analysis of PDEs"],
    ["math.AT", "Algebraic Topology"],
    ["math.CA", "Classical Analysis and ODEs"],
    ["math.CO", "Combinatorics"],
    ["math.CT", "Category Theory"],
    ["math.CV", "Complex Variables"],
    ["math.DG", "Differential Geometry"],
    ["math.DS", "Dynamical Systems"],
    ["math.FA", "Functional Analysis"],
    ["math.GM", "General Mathematics"],
    ["math.GN", "General Topology"],
    ["math.GR", "Group Theory"],
    ["math.GT", "Geometric Topology"],
    ["math.HO", "History and Overview"],
    ["math.IT", "Information Theory"],
    ["math.KT", "K-Theory and Homology"],
    ["math.LO", "Logic"],
    ["math.MG", "Metric Geometry"],
    ["math.MP", "Mathematical Physics"],
    ["math.NA", "Numerical Analysis"],
    ["math.NT", "Number Theory"],
    ["math.OA", "Operator Algebras"],
    ["math.OC", "Optimization and Control"],
    ["math.PR", "Probability"],
    ["math.QA", "Quantum Algebra"],
    ["math.RA", "Rings and Algebras"],
    ["math.RT", "Representation Theory"],
    ["math.SG", "Symplectic Geometry"],
    ["math.SP", "Spectral Theory"],
    ["math.ST", "Statistics Theory"]
  ]),
  ...group("Physics", [
    ["astro-ph.CO", "Cosmology and Nongalactic Astrophysics"],
    ["astro-ph.EP", "Earth and Planetary Astrophysics"],
    ["astro-ph.GA", "Astrophysics of Galaxies"],
    ["astro-ph.HE", "High Energy Astrophysical Phenomena"],
    ["astro-ph.IM", "Instrumentation and Methods for Astrophysics"],
    ["astro-ph.SR", "Solar and Stellar Astrophysics"],
    ["cond-mat.dis-nn", "Disordered Systems and Neural Networks"],
    ["cond-mat.mes-hall", "Mesoscale and Nanoscale Physics"],
    ["cond-mat.mtrl-sci", "Materials Science"],
    ["cond-mat.other", "Other Condensed Matter"],
    ["cond-mat.quant-gas", "Quantum Gases"],
    ["cond-mat.soft", "Soft Condensed Matter"],
    ["cond-mat.stat-mech", "Statistical Mechanics"],
    ["cond-mat.str-el", "Strongly Correlated Electrons"],
    ["cond-mat.supr-con", "Superconductivity"],
    ["gr-qc", "General Relativity and Quantum Cosmology"],
    ["hep-ex", "High Energy Physics - Experiment"],
    ["hep-lat", "High Energy Physics - Lattice"],
    ["hep-ph", "High Energy Physics - Phenomenology"],
    ["hep-th", "High Energy Physics - Theory"],
    ["math-ph", "Mathematical Physics"],
    ["nlin.AO", "Adaptation and Self-Organizing Systems"],
    ["nlin.CD", "Chaotic Dynamics"],
    ["nlin.CG", "Cellular Automata and Lattice Gases"],
    ["nlin.PS", "Pattern Formation and Solitons"],
    ["nlin.SI", "Exactly Solvable and Integrable Systems"],
    ["nucl-ex", "Nuclear Experiment"],
    ["nucl-th", "Nuclear Theory"],
    ["physics.acc-ph", "Accelerator Physics"],
    ["physics.ao-ph", "Atmospheric and Oceanic Physics"],
    ["physics.app-ph", "Applied Physics"],
    ["physics.atm-clus", "Atomic and Molecular Clusters"],
    ["physics.atom-ph", "Atomic Physics"],
    ["physics.bio-ph", "Biological Physics"],
    ["physics.chem-ph", "Chemical Physics"],
    ["physics.class-ph", "Classical Physics"],
    ["physics.comp-ph", "Computational Physics"],
    ["physics.data-an", "Data Analysis, Statistics and Probability"],
    ["physics.ed-ph", "Physics Education"],
    ["physics.flu-dyn", "Fluid Dynamics"],
    ["physics.gen-ph", "General Physics"],
    ["physics.geo-ph", "Geophysics"],
    ["physics.hist-ph", "History and Philosophy of Physics"],
    ["physics.ins-det", "Instrumentation and Detectors"],
    ["physics.med-ph", "Medical Physics"],
    ["physics.optics", "Optics"],
    ["physics.plasm-ph", "Plasma Physics"],
    ["physics.pop-ph", "Popular Physics"],
    ["physics.soc-ph", "Physics and Society"],
    ["physics.space-ph", "Space Physics"],
    ["quant-ph", "Quantum Physics"]
  ]),
  ...group("Quantitative Biology", [
    ["q-bio.BM", "Biomolecules"],
    ["q-bio.CB", "Cell Behavior"],
    ["q-bio.GN", "Genomics"],
    ["q-bio.MN", "Molecular Networks"],
    ["q-bio.NC", "Neurons and Cognition"],
    ["q-bio.OT", "Other Quantitative Biology"],
    ["q-bio.PE", "Populations and Evolution"],
    ["q-bio.QM", "Quantitative Methods"],
    ["q-bio.SC", "Subcellular Processes"],
    ["q-bio.TO", "Tissues and Organs"]
  ]),
  ...group("Quantitative Finance", [
    ["q-fin.CP", "Computational Finance"],
    ["q-fin.EC", "Economics"],
    ["q-fin.GN", "General Finance"],
    ["q-fin.MF", "Mathematical Finance"],
    ["q-fin.PM", "Portfolio Management"],
    ["q-fin.PR", "Pricing of Securities"],
    ["q-fin.RM", "Risk Management"],
    ["q-fin.ST", "Statistical Finance"],
    ["q-fin.TR", "Trading and Market Microstructure"]
  ]),
  ...group("Statistics", [
    ["stat.AP", "Applications"],
    ["stat.CO", "Computation"],
    ["stat.ME", "Methodology"],
    ["stat.ML", "Machine Learning"],
    ["stat.OT", "Other Statistics"],
    ["stat.TH", "Statistics Theory"]
  ])
]

const byLowerCode = new Map(ARXIV_CATEGORIES.map((c) => [c.code.toLowerCase(), c]))

/**
 * The category for a code, case-insensitively (`cs.lg` → `cs.LG`); undefined
 * for anything arXiv does not list.
 */
export const findCategory = (code: string): ArxivCategory | undefined => byLowerCode.get(code.trim().toLowerCase())

const initials = (name: string): string =>
  (name.match(/\b[A-Za-z]/g) ?? []).join("").toLowerCase()

/**
 * The `n` listed codes closest to an unknown one (for "did you mean"
 * messages): same sub-code in another archive (`cs.ML` → `stat.ML`) or a name
 * with those initials (`cs.ML` → `cs.LG`, Machine Learning) first, then by
 * edit distance.
 */
export const closestCategories = (code: string, n = 3): ReadonlyArray<string> => {
  const c = code.trim().toLowerCase()
  const sub = c.includes(".") ? c.slice(c.indexOf(".") + 1) : c
  const score = (cat: ArxivCategory): number => {
    const lc = cat.code.toLowerCase()
    const catSub = lc.includes(".") ? lc.slice(lc.indexOf(".") + 1) : lc
    if (sub.length >= 2 && (catSub === sub || initials(cat.name) === sub)) return -1
    return levenshtein(c, lc)
  }
  return ARXIV_CATEGORIES
    .map((cat) => ({ code: cat.code, d: score(cat) }))
    .sort((a, b) => a.d - b.d || a.code.localeCompare(b.code))
    .slice(0, n)
    .map((x) => x.code)
}

/**
 * Normalise a list of category codes: each to arXiv's spelling, duplicates
 * dropped; `unknown` lists the codes arXiv does not list.
 */
export const normalizeCategories = (
  codes: ReadonlyArray<string>
): { readonly valid: ReadonlyArray<string>; readonly unknown: ReadonlyArray<string> } => {
  const valid: Array<string> = []
  const unknown: Array<string> = []
  for (const code of codes) {
    const cat = findCategory(code)
    if (cat === undefined) unknown.push(code)
    else if (!valid.includes(cat.code)) valid.push(cat.code)
  }
  return { valid, unknown }
}

/** A message for unknown category codes that says how to fix the call. */
export const unknownCategoriesMessage = (unknown: ReadonlyArray<string>): string =>
  unknown
    .map((code) => `"${code}" is not an arXiv category (closest: ${closestCategories(code).join(", ")})`)
    .join("; ") + ". Use codes such as cs.LG or stat.ML; list_categories gives them all."
