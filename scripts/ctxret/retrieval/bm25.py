"""BM25 with an analyser per language, as sparse vectors for Qdrant.

Analysers (`bm25.analyser`, from corpus.language unless set):
- `kiwi` (Korean): Kiwi morphemes whose part of speech `bm25.pos` lists, identifiers whole. A
  listed tag keeps its conjugated forms too (`VV` keeps Kiwi's `VV`, `VV-R` and `VV-I`); a listed
  `VV-I` keeps only itself. Identifiers (`max.poll.interval.ms`, `Idempotency-Key`,
  `ERR_CONNECTION_RESET`, `3.11.2`: IDENTIFIER) are one token each: Kiwi gets them as pretokenized
  spans, so the particles around them are still analysed.
- `english`: bm25s's own English analysis (lower case, words of two or more word characters,
  bm25s's English stopwords, the Snowball English stemmer of PyStemmer): the analysis behind
  the published bm25s figures.
- `german`, `french`, `spanish`, `portuguese`, `italian`, `dutch`, `russian`: Snowball
  (PyStemmer) with bm25s's stopwords of the language, identifiers whole.
- `japanese`: SudachiPy's morphemes of the content parts of speech (`JAPANESE_POS`), normalised,
  identifiers whole; `chinese`: jieba's words (rjieba), identifiers whole.
- `identifiers` (code, other languages): Unicode words with identifiers matched whole first.
bm25s scores; a document's sparse vector holds its per-term BM25 weights and a query's holds its
term counts, so their dot product is exactly bm25s's score.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from ctxret.errors import InputError

# An identifier: ASCII letters and digits in runs joined by single `.` `_` `-` `:` `/` (`os.path.join`,
# `Idempotency-Key`, `f/1.7`, and numbers such as `2007.3.16` or `3.11.2`, which Kiwi would tag
# W_SERIAL, a tag bm25.pos does not list).
IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._\-:/][A-Za-z0-9]+)+")
SIMPLE_TOKEN = re.compile(IDENTIFIER.pattern + r"|\w+")
ENGLISH_TOKEN = re.compile(r"(?u)\b\w\w+\b")   # bm25s.tokenize's token_pattern
WORD = re.compile(r"\w")
CONJUGATION = ("-R", "-I")   # Kiwi's marks of a regular / irregular verb or adjective stem (VV-R)
# The analysis beyond its settings, part of every description: token lists stored and indexes
# built under another rule are never reused.
RULE = {"pos": "a tag, or the tag without its -R/-I mark", "identifiers": IDENTIFIER.pattern}


def identifier_spans(text: str) -> list[tuple[int, int]]:
    """Where the identifiers of `text` are."""
    return [m.span() for m in IDENTIFIER.finditer(text)]


def pretokenized_identifiers(text: str) -> list[tuple[int, int, str]]:
    """Kiwi's pretokenized spans: each identifier one token, tagged SL."""
    return [(a, b, "SL") for a, b in identifier_spans(text)]


def tag_family(tag: str) -> str:
    """A Kiwi tag without its conjugation mark: VV-R -> VV."""
    return tag[:-2] if tag.endswith(CONJUGATION) else tag


def make_tokenizer(settings: dict, threads: int = 1):
    """The analyser `settings` name (bm25.analyser, resolved from corpus.language)."""
    return ANALYSERS[settings["analyser"]].configured(settings, threads)


def tokenizer_from(description: dict):
    """The analyser an index was built with (its `describe()`), for its queries; InputError for an
    index built under another rule (its queries would not be analysed as its texts were)."""
    if description.get("kind") != "english" and description.get("rule") != RULE:
        raise InputError(f"the BM25 index was built under another analysis rule ({description.get('rule')}); "
                         f"rebuild it: snakemake --forcerun index")
    return ANALYSERS[description.get("kind", "kiwi")].described(description)


def stored_tokens(analyser, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
    """An analyser's token lists through the content-addressed store, keyed by its `describe()`
    (a change of analyser, version or settings never reads another's tokens): (tokens per text,
    texts analysed now, tokens kept per tag)."""
    from ctxret.store import JsonPackStore, content_key, namespace_of
    ident = analyser.describe()
    store = JsonPackStore(store_root, "tokens", namespace_of(ident))
    keys = [content_key(tokenizer=ident, text=t) for t in texts]
    found = store.load(keys)
    missing = {k: t for k, t in zip(keys, texts) if k not in found}
    if missing:
        fresh = {k: {"tokens": tokens, "tags": tags}
                 for k, (tokens, tags) in zip(missing, analyser.analyse(list(missing.values())))}
        store.save(fresh)
        found.update(fresh)
    tags = Counter()
    for k in keys:
        tags.update(found[k]["tags"])
    return [found[k]["tokens"] for k in keys], len(missing), tags


def pieces(text: str, longest: int) -> Iterator[tuple[str, bool]]:
    """`text` as (piece, is an identifier), other pieces at most `longest` characters."""
    at = 0
    for a, b in identifier_spans(text) + [(len(text), len(text))]:
        for i in range(at, a, longest):
            yield text[i:min(a, i + longest)], False
        if b > a:
            yield text[a:b], True
        at = b


class Settingless:
    """An analyser that takes no settings: the same from the config as from a stored description."""

    @classmethod
    def configured(cls, settings: dict, threads: int):
        return cls()

    @classmethod
    def described(cls, description: dict):
        return cls()


class EnglishTokenizer(Settingless):
    """bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer("english")), token for token."""

    def __init__(self):
        import Stemmer
        from bm25s.stopwords import STOPWORDS_EN
        self.stemmer = Stemmer.Stemmer("english")
        self.stopwords = frozenset(STOPWORDS_EN)

    def many(self, texts: list[str]) -> list[list[str]]:
        words = [[w for w in ENGLISH_TOKEN.findall(t.lower()) if w not in self.stopwords] for t in texts]
        return [self.stemmer.stemWords(ws) for ws in words]

    def cached_many(self, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
        return self.many(texts), len(texts), Counter()

    def describe(self) -> dict:
        from importlib.metadata import version
        return {"kind": "english", "stemmer": f"PyStemmer {version('PyStemmer')} english",
                "stopwords": f"bm25s {version('bm25s')} en"}


class SimpleTokenizer:
    """`identifiers`: Unicode words and whole identifiers, lowercased on request: cheap, so
    never cached."""

    def __init__(self, lowercase: bool):
        self.lowercase = lowercase

    @classmethod
    def configured(cls, settings: dict, threads: int):
        return cls(bool(settings["lowercase"]))

    @classmethod
    def described(cls, description: dict):
        return cls(description["lowercase"])

    def many(self, texts: list[str]) -> list[list[str]]:
        out = [SIMPLE_TOKEN.findall(t) for t in texts]
        return [[w.lower() for w in words] for words in out] if self.lowercase else out

    def cached_many(self, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
        return self.many(texts), len(texts), Counter()

    def describe(self) -> dict:
        return {"kind": "identifiers", "lowercase": self.lowercase, "rule": RULE}


class KiwiTokenizer:
    """Kiwi's model (a few hundred MB) is loaded when a text is first analysed: an index whose
    tokens all come from the store never loads it."""

    def __init__(self, pos: list[str], lowercase: bool, threads: int = 1):
        self.threads, self._kiwi = threads, None
        self.pos = set(pos)
        self.lowercase = lowercase

    @classmethod
    def configured(cls, settings: dict, threads: int):
        return cls(list(settings["pos"]), bool(settings["lowercase"]), threads)

    @classmethod
    def described(cls, description: dict):
        return cls(description["pos"], description["lowercase"])

    @property
    def kiwi(self):
        if self._kiwi is None:
            from kiwipiepy import Kiwi
            self._kiwi = Kiwi(num_workers=max(1, self.threads))
        return self._kiwi

    def _kept(self, tokens) -> tuple[list[str], dict[str, int]]:
        """(the forms kept, how many of each tag were kept)."""
        kept = [t for t in tokens if t.tag in self.pos or tag_family(t.tag) in self.pos]
        forms = [t.form.lower() if self.lowercase else t.form for t in kept]
        return forms, dict(Counter(t.tag for t in kept))

    def analyse(self, texts: list[str]) -> list[tuple[list[str], dict[str, int]]]:
        """Per text: (its tokens, how many of each tag were kept)."""
        return [self._kept(t) for t in self.kiwi.tokenize(texts, pretokenized=pretokenized_identifiers)]

    def many(self, texts: list[str]) -> list[list[str]]:
        return [tokens for tokens, _ in self.analyse(texts)]

    def cached_many(self, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
        """Through the store: Kiwi's analysis is a neural model, the slowest part of indexing."""
        return stored_tokens(self, texts, store_root)

    def describe(self) -> dict:
        import kiwipiepy
        import kiwipiepy_model
        return {"kiwipiepy": kiwipiepy.__version__, "kiwipiepy_model": kiwipiepy_model.__version__,
                "pos": sorted(self.pos), "lowercase": self.lowercase, "rule": RULE}


# The Snowball analysers: an analyser name -> its PyStemmer algorithm and bm25s's stopword list.
SNOWBALL = {name: (name, f"STOPWORDS_{name.upper()}")
            for name in ("german", "french", "spanish", "portuguese", "italian", "dutch", "russian")}
SNOWBALL_TOKEN = re.compile(IDENTIFIER.pattern + r"|\b\w\w+\b")


class SnowballTokenizer:
    """A Snowball language (`SNOWBALL`): lower case, identifiers whole, then words of two or more
    word characters less bm25s's stopwords of the language, stemmed by PyStemmer's algorithm."""

    def __init__(self, name: str):
        import Stemmer
        from bm25s import stopwords
        algorithm, stopword_list = SNOWBALL[name]
        self.name, self.stemmer = name, Stemmer.Stemmer(algorithm)
        self.stopwords = frozenset(getattr(stopwords, stopword_list))

    @classmethod
    def configured(cls, settings: dict, threads: int):
        return cls(settings["analyser"])

    @classmethod
    def described(cls, description: dict):
        return cls(description["kind"])

    def many(self, texts: list[str]) -> list[list[str]]:
        return [[w if IDENTIFIER.fullmatch(w) else self.stemmer.stemWord(w)
                 for w in SNOWBALL_TOKEN.findall(t.lower()) if w not in self.stopwords] for t in texts]

    def cached_many(self, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
        return self.many(texts), len(texts), Counter()

    def describe(self) -> dict:
        from importlib.metadata import version
        return {"kind": self.name, "stemmer": f"PyStemmer {version('PyStemmer')} {SNOWBALL[self.name][0]}",
                "stopwords": f"bm25s {version('bm25s')} {SNOWBALL[self.name][1]}", "rule": RULE}


# Japanese (SudachiPy and its core dictionary): the parts of speech whose morphemes are kept, as
# bm25.pos keeps Korean content morphemes: nouns (numerals among them), pronouns, verbs,
# adjectives, adjectival nouns, adverbs; particles, auxiliaries, affixes and symbols are dropped.
JAPANESE_POS = ("名詞", "代名詞", "動詞", "形容詞", "形状詞", "副詞")
SUDACHI_MODE = "A"      # the shortest units (依存性注入: 依存, 性, 注入), as Kiwi splits compounds
SUDACHI_CHARS = 4096    # the longest piece Sudachi reads at once (it refuses more than 49,149 bytes)


class JapaneseTokenizer(Settingless):
    """`japanese`: Sudachi's morphemes of `JAPANESE_POS` in their normalised form (三 -> 3, a
    conjugated verb -> its dictionary form), lower case, identifiers whole. Token lists go
    through the store, as Kiwi's; the dictionary is loaded when a text is first analysed."""

    def __init__(self):
        self._sudachi = None

    @property
    def sudachi(self):
        if self._sudachi is None:
            from sudachipy import Dictionary
            self._sudachi = Dictionary(dict="core").tokenizer(mode=SUDACHI_MODE)
        return self._sudachi

    def _analysed(self, text: str) -> tuple[list[str], dict[str, int]]:
        tokens, tags = [], Counter()
        for piece, identifier in pieces(text, SUDACHI_CHARS):
            if identifier:
                tokens.append(piece.lower())
                tags["identifier"] += 1
                continue
            for m in self.sudachi.tokenize(piece):
                pos = m.part_of_speech()[0]
                if pos in JAPANESE_POS:
                    tokens.append(m.normalized_form().lower())
                    tags[pos] += 1
        return tokens, dict(tags)

    def analyse(self, texts: list[str]) -> list[tuple[list[str], dict[str, int]]]:
        """Per text: (its tokens, how many of each part of speech were kept)."""
        return [self._analysed(t) for t in texts]

    def many(self, texts: list[str]) -> list[list[str]]:
        return [tokens for tokens, _ in self.analyse(texts)]

    def cached_many(self, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
        return stored_tokens(self, texts, store_root)

    def describe(self) -> dict:
        from importlib.metadata import version
        return {"kind": "japanese", "sudachipy": version("SudachiPy"), "sudachidict_core": version("sudachidict-core"),
                "mode": SUDACHI_MODE, "pos": list(JAPANESE_POS), "form": "normalized, lower case", "rule": RULE}


class ChineseTokenizer(Settingless):
    """`chinese`: jieba's words (rjieba, its Rust port, with the HMM for unknown words) holding a
    letter or digit, lower case, identifiers whole; no stopword list (bm25s's Chinese list drops
    content words such as 不同 and 上面: on FastAPI's Chinese docs it raised fail@5 from 0.472 to
    0.485, benchmarks/bench_languages.py). Fast, so never cached."""

    def __init__(self):
        import rjieba
        self.cut = rjieba.cut

    def _words(self, text: str) -> list[str]:
        words = []
        for piece, identifier in pieces(text, len(text) or 1):
            cut = [piece] if identifier else self.cut(piece, True)
            words += [w.lower() for w in cut if WORD.search(w)]
        return words

    def many(self, texts: list[str]) -> list[list[str]]:
        return [self._words(t) for t in texts]

    def cached_many(self, texts: list[str], store_root: str) -> tuple[list[list[str]], int, Counter]:
        return self.many(texts), len(texts), Counter()

    def describe(self) -> dict:
        from importlib.metadata import version
        return {"kind": "chinese", "segmenter": f"rjieba {version('rjieba')} hmm", "rule": RULE}


# The analysers by name (bm25.analyser; a language's record names its own: ctxret.languages). A new
# one is a class with configured/described/many/cached_many/describe and a line here.
ANALYSERS = {"kiwi": KiwiTokenizer, "english": EnglishTokenizer, "identifiers": SimpleTokenizer,
             "japanese": JapaneseTokenizer, "chinese": ChineseTokenizer, **dict.fromkeys(SNOWBALL, SnowballTokenizer)}


class TermIds(Sequence):
    """Each document's term ids, held as int32 arrays and handed out as lists (what bm25s reads)."""

    def __init__(self, arrays: list[np.ndarray]):
        self.arrays = arrays

    def __len__(self) -> int:
        return len(self.arrays)

    def __getitem__(self, i: int) -> list[int]:
        return self.arrays[i].tolist()


def term_ids(token_lists: Iterable[list[str]]) -> tuple[dict[str, int], list[np.ndarray]]:
    """(vocab token->id, each document's term ids as an int32 array).

    The vocabulary is the sorted set of tokens, so term ids are the same in every process
    (bm25s's own vocabulary follows set order, which changes with hash randomisation).
    `token_lists` is read twice (a list, or a stream that starts again each time it is
    iterated): once for the vocabulary, once for the term ids, so a corpus's tokens are never
    all held as strings.
    """
    vocab = {t: i for i, t in enumerate(sorted({t for tokens in token_lists for t in tokens}))}
    return vocab, [np.fromiter(map(vocab.__getitem__, tokens), np.int32, len(tokens)) for tokens in token_lists]


def bm25_weights(vocab: dict[str, int], ids: list[np.ndarray], k1: float, b: float):
    """(bm25s retriever, CSR matrix docs x terms of BM25 weights) of `term_ids`' output."""
    import bm25s
    import scipy.sparse as sp
    from bm25s.tokenization import Tokenized
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.index(Tokenized(ids=TermIds(ids), vocab=vocab), show_progress=False)
    s = retriever.scores
    csc = sp.csc_matrix((s["data"], s["indices"], s["indptr"]),
                        shape=(s["num_docs"], len(s["indptr"]) - 1))
    return retriever, csc.tocsr()


def build_index(token_lists: Iterable[list[str]], k1: float, b: float):
    """(bm25s retriever, vocab token->id, CSR matrix docs x terms of BM25 weights)."""
    vocab, ids = term_ids(token_lists)
    retriever, matrix = bm25_weights(vocab, ids, k1, b)
    return retriever, dict(retriever.vocab_dict), matrix


def query_vector(tokens: list[str], vocab: dict[str, int]) -> tuple[list[int], list[float]]:
    """Term counts of the known tokens (sorted ids); empty when every term is unknown."""
    counts = Counter(vocab[t] for t in tokens if t in vocab)
    ids = sorted(counts)
    return ids, [float(counts[i]) for i in ids]
