"""ctxret.config: what the run is. The schema and its defaults (`schema`), the checks that refuse a
setting that would destroy or fake results (`checks`), the Plan of the experiment built from the
completed config (`plan`: every record and name, with `layout` naming every results file), and
the checks before anything is paid (`preflight`). May import the domain wings it reads registries
from (text, languages, importers, chunkers, questions, embedding, contexts, evaluation,
retrieval) and the shared leaves; never runtime, presentation or stages."""
