"""ctxret.evaluation: how good a condition is, and whether two differ. The measures and a
condition's per-question outcomes (`metrics`, one `Family` line each), the statistics
(`stats`), two conditions compared question by question (`paired`), the power check by simulation
(`power_simulation`), what a run commits to before paying and whether it kept to it
(`preregistration`), judged sets' pools, graded qrels and the judge's agreement with gold
(`judgments`). May import questions and the shared leaves."""
