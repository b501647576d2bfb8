"""ctxret.contexts: the context a chunk is given before it is embedded. The LLM backends (`llm`,
one module and one registry line each, X1's free heuristic among them), the prompt (`prompt`),
replies checked before they become contexts (`replies`), one job per document paid once ever
(`per_document`) or every document by a batch API (`batches`), the estimate and the ledger
(`ledger`), the price table (`prices`), one record shown (`show`, a command). May import text,
languages and the shared leaves."""
