"""BM25 over Kiwi morphemes, identifiers kept whole, as sparse vectors for Qdrant.

Config keys, error codes and dotted/hyphenated/underscored names (`max.poll.interval.ms`,
`Idempotency-Key`, `ERR_CONNECTION_RESET`) are handed to Kiwi as pretokenized spans, so each
is one token while the particles around them are still analysed. bm25s scores; a document's
sparse vector holds its per-term BM25 weights and a query's holds its term counts, so their
dot product is exactly bm25s's score.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._\-:/][A-Za-z0-9]+)+")


class KiwiTokenizer:
    def __init__(self, pos: list[str], lowercase: bool):
        from kiwipiepy import Kiwi
        self.kiwi = Kiwi()
        self.pos = set(pos)
        self.lowercase = lowercase

    @staticmethod
    def identifier_spans(text: str) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), "SL") for m in IDENTIFIER.finditer(text)]

    def _keep(self, tokens) -> list[str]:
        forms = [t.form for t in tokens if t.tag in self.pos]
        return [f.lower() for f in forms] if self.lowercase else forms

    def __call__(self, text: str) -> list[str]:
        return self._keep(self.kiwi.tokenize(text, pretokenized=self.identifier_spans(text)))

    def many(self, texts: list[str]) -> list[list[str]]:
        return [self._keep(t) for t in self.kiwi.tokenize(texts, pretokenized=self.identifier_spans)]

    def describe(self) -> dict:
        import kiwipiepy
        import kiwipiepy_model
        return {"kiwipiepy": kiwipiepy.__version__, "kiwipiepy_model": kiwipiepy_model.__version__,
                "pos": sorted(self.pos), "lowercase": self.lowercase}


def build_index(token_lists: list[list[str]], k1: float, b: float):
    """(bm25s retriever, vocab token->id, CSR matrix docs x terms of BM25 weights).

    The vocabulary is the sorted set of tokens, so term ids are the same in every process
    (bm25s's own vocabulary follows set order, which changes with hash randomisation).
    """
    import bm25s
    import scipy.sparse as sp
    from bm25s.tokenization import Tokenized
    vocab = {t: i for i, t in enumerate(sorted({t for tokens in token_lists for t in tokens}))}
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.index(Tokenized(ids=[[vocab[t] for t in tokens] for tokens in token_lists], vocab=vocab),
                    show_progress=False)
    s = retriever.scores
    csc = sp.csc_matrix((s["data"], s["indices"], s["indptr"]),
                        shape=(s["num_docs"], len(s["indptr"]) - 1))
    return retriever, dict(retriever.vocab_dict), csc.tocsr()


def query_vector(tokens: list[str], vocab: dict[str, int]) -> tuple[list[int], list[float]]:
    """Term counts of the known tokens (sorted ids); empty when every term is unknown."""
    counts = Counter(vocab[t] for t in tokens if t in vocab)
    ids = sorted(counts)
    return ids, [float(counts[i]) for i in ids]


def doc_vectors(matrix) -> list[tuple[list[int], list[float]]]:
    out = []
    for i in range(matrix.shape[0]):
        row = matrix.getrow(i)
        order = np.argsort(row.indices)
        out.append((row.indices[order].tolist(), row.data[order].astype(float).tolist()))
    return out
