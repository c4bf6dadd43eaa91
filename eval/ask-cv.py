"""Leave-one-file-out cross-validation over the replay's `--out` per-question figures (the tenth round's rule).

python3 eval/ask-cv.py OUT.json [MAIN_NAME] [--by top3] [--table]
(`--table`, the thirteenth round: first every setting's pooled top 3 / top 10 on all questions with 95 % intervals,
the paired difference of its top 3 from main's and how many questions it makes better / worse in the top 3.)
(The last lines print the eleventh round's paired bootstrap of the cross-validated figures minus main's and its rule.)
For each file (set), the setting with the highest pooled top 10 on the other files (a tie within half a point goes
to the higher top 3, then to main, then to the earlier setting in the grid's order, which lists smaller k, n, r and
source rel first) is scored on the file left out; the cross-validated figure is the mean over all questions of
those left-out scores. 95 % bootstrap intervals over questions (5,000 draws, fixed seed).
"""
import json, random, sys

# `--by top3` (the twelfth round): choose by the pooled top 3 (a tie within half a point to the higher top 10)
by3 = "--by" in sys.argv and sys.argv[sys.argv.index("--by") + 1] == "top3"
table = "--table" in sys.argv
args = [a for i, a in enumerate(sys.argv) if a not in ("--by", "--table") and (i == 0 or sys.argv[i - 1] != "--by")]
rows = json.load(open(args[1]))
main_name = args[2] if len(args) > 2 else "current"
sets = rows[0]["sets"]
files = list(dict.fromkeys(sets))

def mean(xs): return sum(xs) / max(1, len(xs))
def boot(xs, draws=5000, seed=12):
    r = random.Random(seed); n = len(xs)
    ms = sorted(mean([xs[r.randrange(n)] for _ in range(n)]) for _ in range(draws))
    return ms[int(0.025 * draws)], ms[int(0.975 * draws) - 1]
def pct(x): return f"{100 * x:.1f} %"
def iv(xs):
    lo, hi = boot(xs); return f"{pct(mean(xs))} [{100*lo:.0f}, {100*hi:.0f}]"

def pick(idx):
    first, second = ("at3", "at10") if by3 else ("at10", "at3")
    scored = [(mean([r[first][i] for i in idx]), mean([r[second][i] for i in idx]), order, r) for order, r in enumerate(rows)]
    top = max(x[0] for x in scored)
    near = [x for x in scored if x[0] >= top - 0.005 - 1e-12]
    best3 = max(x[1] for x in near)
    tied = [x for x in near if abs(x[1] - best3) <= 1e-12]
    tied.sort(key=lambda x: (x[3]["setting"] != main_name, x[2]))
    return tied[0][3]

main = next(r for r in rows if r["setting"] == main_name)
if table:
    print(f"| setting (pooled on all {len(sets)}) | top 3 | top 10 | top 3 minus main, paired | questions better / worse in the top 3 |")
    print("|---|---|---|---|---|")
    for r in rows:
        d = [a - b for a, b in zip(r["at3"], main["at3"])]
        lo, hi = boot(d)
        paired = "" if r is main else f"{100*mean(d):+.1f} [{100*lo:+.1f}, {100*hi:+.1f}]"
        counts = "" if r is main else f"{sum(x > 1e-12 for x in d)} / {sum(x < -1e-12 for x in d)}"
        print(f"| {r['setting']} | {iv(r['at3'])} | {iv(r['at10'])} | {paired} | {counts} |")
    print()
cv3 = [0.0] * len(sets); cv10 = [0.0] * len(sets)
print("| file left out | setting chosen on the others | its top 3 / top 10 on the file left out | main on that file |")
print("|---|---|---|---|")
for f in files:
    train = [i for i, s in enumerate(sets) if s != f]; test = [i for i, s in enumerate(sets) if s == f]
    row = pick(train)
    for i in test: cv3[i] = row["at3"][i]; cv10[i] = row["at10"][i]
    print(f"| {f} ({len(test)}) | {row['setting']} | {pct(mean([row['at3'][i] for i in test]))} / {pct(mean([row['at10'][i] for i in test]))} | {pct(mean([main['at3'][i] for i in test]))} / {pct(mean([main['at10'][i] for i in test]))} |")
print(f"| **cross-validated, {len(sets)}** | | **{iv(cv3)} / {iv(cv10)}** | **{iv(main['at3'])} / {iv(main['at10'])}** |")
allrow = pick(list(range(len(sets))))
print(f"\nchosen on all {len(sets)}: {allrow['setting']}: {iv(allrow['at3'])} / {iv(allrow['at10'])}")
d10 = mean(cv10) - mean(main["at10"]); d3 = mean(cv3) - mean(main["at3"])
kept = (d10 >= 0.02 and d3 >= 0) or (d3 >= 0.02 and d10 >= 0)
print(f"cross-validated minus main: top 3 {100*d3:+.1f} points, top 10 {100*d10:+.1f} points -> {'KEPT' if kept else 'not kept'} by the rule")

# the eleventh round's rule: the cross-validated top 10 minus main's, per question, with a paired bootstrap interval
# above 0, and the cross-validated top 3 not below main's (point estimate)
diff10 = [a - b for a, b in zip(cv10, main["at10"])]; diff3 = [a - b for a, b in zip(cv3, main["at3"])]
lo10, hi10 = boot(diff10); lo3, hi3 = boot(diff3)
print(f"paired (cross-validated minus main, 5,000 draws): top 3 {100*mean(diff3):+.1f} points [{100*lo3:+.1f}, {100*hi3:+.1f}], top 10 {100*mean(diff10):+.1f} points [{100*lo10:+.1f}, {100*hi10:+.1f}]")
adopted = lo10 > 0 and mean(diff3) >= -1e-12
print(f"eleventh round's rule (top 10 interval above 0, top 3 not lower): {'ADOPTED' if adopted else 'not adopted'}")

# the twelfth round's rule (`--by top3`): the cross-validated top 3 minus main's, per question, with a paired bootstrap
# interval above 0, and the cross-validated top 10 not below main's (point estimate)
if by3:
    adopted12 = lo3 > 0 and mean(diff10) >= -1e-12
    print(f"twelfth round's rule (top 3 interval above 0, top 10 not lower): {'ADOPTED' if adopted12 else 'not adopted'}")
