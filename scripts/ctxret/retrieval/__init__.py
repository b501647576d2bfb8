"""ctxret.retrieval: finding chunks for a question. BM25 and its analysers (`bm25`, one
`ANALYSERS` line each), Qdrant's two engines behind one interface (`qdrant`), the fusion presets
(`fusion`), the run files every searcher writes and the scorers read (`runs`). May import
evaluation, languages and the shared leaves."""
