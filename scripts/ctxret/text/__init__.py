"""ctxret.text: documents and chunk text. docs.jsonl records and their units (`documents`), the
texts a chunk is embedded, prompted and shown as (`chunk_text`: T1, a context prepended). May
import the shared leaves only."""
