"""ctxret.embedding: texts into vectors. The embedding backends and model slots (`models`, one
`EmbeddingBackend` line each), the bundled multilingual-e5-small in torch (`e5torch`), the CPU's
matrix units (`cpu`), the precision a slot runs at (`precision`), vectors through the store
(`vectors`). May import the shared leaves only."""
