"""Experiment (not shipped, no gain): fine-tunes the judge's word vectors contrastively on the
CC0 arXiv abstracts. Each abstract gives two views (its title plus a random half of its
sentences, and the other half); a view is the SIF-weighted sum of its word vectors; the loss is
symmetric InfoNCE over batches of 512. Writes a term-vector module to score with
`TV=OUT node --import tsx eval/sweep.ts` or eval/tune.ts (README, third round).

    node --import tsx eval/contrastive-views.ts views.jsonl
    python3 eval/experiment-contrastive.py views.jsonl EPOCHS TAU LR OUT [--common]

Starts from src/adapters/judge/termVectors.generated.ts; needs numpy and scipy
(Debian: python3-scipy). 1 epoch, tau 0.05, lr 0.001 is the README row's best.
"""
import base64, json, os, random, sys
import numpy as np, scipy.sparse as sp
rng = np.random.default_rng(0); random.seed(0)
repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = open(os.path.join(repo, 'src', 'adapters', 'judge', 'termVectors.generated.ts')).read()
packed = json.loads(src[src.index('= {') + 2:].strip())
stems = packed['stems'].split('\n'); V = len(stems); D = packed['dims']
sif = np.array([float(x) for x in packed['sif'].split(',')])
W0 = np.frombuffer(base64.b64decode(packed['int8Base64']), dtype=np.int8).reshape(V, D).astype(np.float64) / 127
idx = {s: i for i, s in enumerate(stems)}
docs = [json.loads(l) for l in open(sys.argv[1])]
docs = [d for d in docs if len(d['s']) >= 2]
EPOCHS = int(sys.argv[2]); TAU = float(sys.argv[3]); LR = float(sys.argv[4]); OUT = sys.argv[5]; BATCH = 512
def row(tokens):
    c = {}
    for t in tokens:
        i = idx.get(t)
        if i is not None: c[i] = c.get(i, 0) + sif[i]
    return c
def mat(rows):
    data, ri, ci = [], [], []
    for r, c in enumerate(rows):
        for i, v in c.items(): ri.append(r); ci.append(i); data.append(v)
    return sp.csr_matrix((data, (ri, ci)), shape=(len(rows), V))
W = W0.copy(); m = np.zeros_like(W); v = np.zeros_like(W); step = 0
def norm(X):
    n = np.linalg.norm(X, axis=1, keepdims=True) + 1e-9
    return X / n, n
for ep in range(EPOCHS):
    order = rng.permutation(len(docs)); tot = 0; nb = 0
    for b in range(0, len(order) - BATCH + 1, BATCH):
        batch = [docs[i] for i in order[b:b + BATCH]]
        v1, v2 = [], []
        for d in batch:
            s = list(range(len(d['s']))); random.shuffle(s); h = len(s) // 2
            v1.append(row(d['t'] + [t for k in s[:h] for t in d['s'][k]]))
            v2.append(row([t for k in s[h:] for t in d['s'][k]]))
        A1, A2 = mat(v1), mat(v2)
        X1 = A1 @ W; X2 = A2 @ W
        U1, n1 = norm(X1); U2, n2 = norm(X2)
        S = U1 @ U2.T / TAU
        P1 = np.exp(S - S.max(1, keepdims=True)); P1 /= P1.sum(1, keepdims=True)
        P2 = np.exp(S.T - S.T.max(1, keepdims=True)); P2 /= P2.sum(1, keepdims=True)
        B = len(batch); I = np.eye(B)
        loss = -(np.log(np.diag(P1) + 1e-12).mean() + np.log(np.diag(P2) + 1e-12).mean()) / 2
        dS = ((P1 - I) + (P2 - I).T) / (2 * B) / TAU
        dU1 = dS @ U2; dU2 = dS.T @ U1
        dX1 = (dU1 - U1 * (U1 * dU1).sum(1, keepdims=True)) / n1
        dX2 = (dU2 - U2 * (U2 * dU2).sum(1, keepdims=True)) / n2
        G = A1.T @ dX1 + A2.T @ dX2
        step += 1; m = 0.9 * m + 0.1 * G; v = 0.999 * v + 0.001 * G * G
        W -= LR * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        tot += loss; nb += 1
    print('epoch', ep, 'loss', tot / nb, flush=True)
# pack: unit vectors + weight sif*|W|
nrm = np.linalg.norm(W, axis=1); Un = W / (nrm[:, None] + 1e-9)
wt = sif * nrm
# common direction of corpus text vectors
allrows = mat([row(d['t'] + [t for s in d['s'] for t in s]) for d in docs])
X = allrows @ (Un * wt[:, None])
_, _, vt = np.linalg.svd(X[:5000], full_matrices=False)
common = vt[0] if '--common' in sys.argv else np.zeros(D)
q = np.clip(np.round(Un * 127), -127, 127).astype(np.int8)
obj = {"source": "contrastive", "dims": D, "stems": "\n".join(stems), "sif": ",".join(f"{x:.4g}" for x in wt), "common": [round(float(x), 6) for x in common], "int8Base64": base64.b64encode(q.tobytes()).decode()}
open(OUT, 'w').write("export const packedTermVectors = " + json.dumps(obj) + "\n")
print('written', OUT)
