import { readFileSync } from "node:fs"
import { analyseQuestion, questionConcept } from "../src/core/question.js"
import { fromDfTable } from "../src/adapters/query/termStatistics.js"
const stats = fromDfTable()
for (const line of readFileSync("eval/ask/questions.jsonl", "utf8").split("\n").filter((l) => l.trim() !== "")) {
  const q = JSON.parse(line).question as string
  const c = questionConcept(analyseQuestion(q), stats)
  const extra = c.terms.flatMap((t) => t.forms.slice(1).filter((f) => t.source !== "synonyms" && !/^[a-z]+iz/.test(f)))
  if (extra.length > 0) console.log(q.slice(0, 60), "|", extra.join(", "))
}
