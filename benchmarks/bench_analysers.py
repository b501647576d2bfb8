"""BM25 analysis throughput per language: texts a second of every analyser of a language record,
one thread each, beside Kiwi's (Korean) and English's.

    .venv/bin/python benchmarks/bench_analysers.py [--texts 2000]

The texts are chunk-sized (600 characters): Korean ones are paragraphs of the demo corpus
(data/demo), the others a technical paragraph of the language, each text made distinct by a
number. Each analyser reads one text first (its model or dictionary loaded, timed apart), then
all the texts in one call of `many`, as the index stage reads a block.

Target: the slowest other analyser no slower than Kiwi (texts/s >= Kiwi's).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from targets import load_line, target

from ctxret.config.schema import complete
from ctxret.languages import LANGUAGES
from ctxret.retrieval.bm25 import make_tokenizer

ROOT = Path(__file__).resolve().parents[1]
CHARS = 600
PARAGRAPHS = {
    "en": "The connection pool keeps database connections open between requests. Size it to max_connections "
          "divided by the number of app instances, and give every call a connect timeout and a read timeout.",
    "de": "Der Verbindungspool hält Datenbankverbindungen zwischen Anfragen offen. Setzen Sie max_connections "
          "auf die Anzahl der Instanzen und geben Sie jedem Aufruf eine Verbindungs- und eine Lesezeitüberschreitung.",
    "fr": "Le pool de connexions garde les connexions à la base de données ouvertes entre les requêtes. Réglez "
          "max_connections selon le nombre d'instances et donnez à chaque appel un délai de connexion et de lecture.",
    "es": "El grupo de conexiones mantiene abiertas las conexiones a la base de datos entre peticiones. Ajuste "
          "max_connections según el número de instancias y dé a cada llamada un tiempo de espera de conexión.",
    "pt": "O pool de conexões mantém as conexões com o banco de dados abertas entre as requisições. Ajuste "
          "max_connections ao número de instâncias e dê a cada chamada um tempo limite de conexão e de leitura.",
    "it": "Il pool di connessioni mantiene aperte le connessioni al database tra le richieste. Imposta "
          "max_connections in base al numero di istanze e dai a ogni chiamata un timeout di connessione e di lettura.",
    "nl": "De verbindingspool houdt databaseverbindingen open tussen verzoeken. Stel max_connections in op het "
          "aantal instanties en geef elke aanroep een time-out voor verbinden en voor lezen.",
    "ru": "Пул соединений держит соединения с базой данных открытыми между запросами. Задайте max_connections "
          "по числу экземпляров и дайте каждому вызову тайм-аут соединения и тайм-аут чтения.",
    "ja": "コネクションプールはリクエストの間もデータベース接続を開いたままにする。max_connectionsはアプリの"
          "インスタンス数で割った値に設定し、すべての呼び出しに接続タイムアウトと読み取りタイムアウトを与える。",
    "zh": "连接池在请求之间保持数据库连接处于打开状态。将max_connections设置为应用实例数量所除得的值，"
          "并为每次调用设置连接超时和读取超时。",
}


def korean_paragraphs() -> list[str]:
    """The demo corpus's paragraphs of 200 characters or more."""
    paragraphs = [p for f in sorted((ROOT / "data" / "demo" / "articles").glob("*.mdx"))
                  for p in f.read_text(encoding="utf-8").split("\n\n")]
    return [p for p in paragraphs if len(p) >= 200]


def texts_of(code: str, n: int) -> list[str]:
    """`n` distinct texts of CHARS characters in the language."""
    paragraphs = korean_paragraphs() if code == "ko" else [PARAGRAPHS[code]]
    out = []
    for i in range(n):
        text, j = f"{i}. ", i
        while len(text) < CHARS:
            text += paragraphs[j % len(paragraphs)] + " "
            j += 1
        out.append(text[:CHARS])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--texts", type=int, default=2000)
    args = ap.parse_args()
    print(load_line(), flush=True)
    bm25 = complete({"corpus": {"path": "unused"}, "questions": {"sets": {"Q": "unused.jsonl"}}})["bm25"]
    rates = {}
    for code, record in LANGUAGES.items():
        analyser = make_tokenizer({**bm25, "analyser": record.analyser}, 1)
        texts = texts_of(code, args.texts)
        start = time.perf_counter()
        analyser.many(texts[:1])
        loaded = time.perf_counter() - start
        start = time.perf_counter()
        tokens = analyser.many(texts)
        took = time.perf_counter() - start
        rates[code] = len(texts) / took
        print(f"  {code} {record.analyser:<10} {rates[code]:>8,.0f} texts/s  ({len(texts):,} texts in {took:.2f} s, "
              f"{sum(map(len, tokens)) / len(texts):.0f} tokens a text; first text {loaded:.2f} s)", flush=True)
    slowest = min((code for code in rates if code != "ko"), key=rates.get)
    target("BM25 analysis: slowest analyser vs Kiwi (1 thread)",
           f"{slowest} {rates[slowest]:,.0f} vs ko {rates['ko']:,.0f} texts/s", ">= Kiwi's",
           rates[slowest] >= rates["ko"])


if __name__ == "__main__":
    main()
