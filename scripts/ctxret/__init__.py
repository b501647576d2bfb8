"""ctxret: does Contextual Retrieval find more right answers on Korean documents?"""
