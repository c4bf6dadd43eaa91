import { analyseQuestion, questionConcept } from "../src/core/question.js"
import { fromDfTable } from "../src/adapters/query/termStatistics.js"
const c = questionConcept(analyseQuestion(process.argv[2]!), fromDfTable())
console.log(c.keywords.map((k) => `${k.term}:${k.weight.toFixed(2)}`).join(" "))
