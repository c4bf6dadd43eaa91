"""Trains the local judge's word vectors (skip-gram word2vec, gensim) on the
stem corpus that eval/build-term-vectors.ts writes (one abstract a line, stems
separated by spaces). Build-time only; nothing here ships.

    python3 eval/word2vec.py CORPUS OUT DIMS WINDOW EPOCHS

Needs gensim (Debian: apt-get install python3-gensim). One worker and a fixed
seed make the output the same on every run (run with PYTHONHASHSEED=0).
"""
import sys

from gensim.models import Word2Vec

corpus, out, dims, window, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with open(corpus, encoding="utf-8") as f:
    sentences = [line.split() for line in f if line.strip()]
model = Word2Vec(
    sentences,
    vector_size=dims,
    window=window,
    min_count=3,
    sg=1,
    negative=10,
    sample=1e-4,
    epochs=epochs,
    workers=1,
    seed=42,
)
model.wv.save_word2vec_format(out, binary=False)
print(f"{len(model.wv.index_to_key)} words x {dims} dims -> {out}")
