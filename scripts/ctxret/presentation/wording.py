"""The words of the reports, in each report language (config `report.language`)."""
from __future__ import annotations

from ctxret.errors import InputError

LANGUAGES = ("ko", "en")

WORDING = {
    "en": {
        "holds": "holds",
        "undecided": "cannot be distinguished with this many questions",
        "reversed": "came out the other way",
        "equivalent": "equivalent within ±{margin:g}",
        "bca": "BCa bootstrap interval (bias-corrected and accelerated, same resamples): [{lo:+.3f}, {hi:+.3f}]",
        "review_counts": "generated, review {mode}: {accepted} accepted, {rejected} rejected, {not_reviewed} not "
                         "reviewed",
        "rule_cluster_t": "The verdict reads the cluster-robust t interval in place of the bootstrap's "
                          "(pairs.interval: cluster_t).",
        "cluster_t": "cluster-robust t interval ({clusters} clusters, t with {df} degrees of freedom; no resampling): "
                     "[{lo:+.3f}, {hi:+.3f}]",
        "tost": "equivalence within ±{margin:g} (TOST at alpha {alpha}): exact unconditional tests (Berger-Boos) "
                "p = {p_lower:.3f} (diff <= -{margin:g}) and {p_upper:.3f} (diff >= +{margin:g}); "
                "{level:.0%} cluster-bootstrap interval [{lo:+.3f}, {hi:+.3f}] {inside}: {said}",
        "tost_inside": "inside the margin", "tost_outside": "not inside the margin",
        "tost_yes": "equivalent", "tost_no": "not shown equivalent",
        "power_clustered": "with the clusters (design effect {deff:.2f} = 1 + ({size:.2f} - 1) x ICC {icc:.3f}, "
                           "verdict's interval): smallest difference {mdd}; questions needed {needed}",
        "equivalence_column": "TOST p (±margin)",
        "bh": "BH p",
        "secondary_rule_bh": "Every other comparison is secondary: one family of {n} comparisons with "
                             "Benjamini-Hochberg-adjusted (false discovery rate) sign-test p values. None of them "
                             "is promoted to a conclusion.",
        "prereg_equivalence": "Equivalence margins (TOST at alpha {alpha}; verdict \"equivalent within ±margin\" "
                              "when the interval contains 0 and the TOST rejects both sides): {margins}.",
        "plan_equivalence": "to show equivalence within ±{margin:g} when the true difference is 0 "
                            "(TOST, normal approximation at discordance {psi:.3f}, power {power:.0%}): {n} questions "
                            "independent, {nc} with the clusters",
        "plan_clustered": "design effect of the planning pair's paired differences: {deff:.2f} = 1 + ({size:.2f} - 1) "
                          "x ICC {icc:.3f}; the plan's sentence counts the clusters",
        "plan_interval_clustered": "the verdict's interval, with the clusters (design effect {deff:.2f})",
        "score_title": "Score",
        "judged_line": "Judged set {set}: {questions} questions, relevance graded 0-3 by the LLM over the pool of "
                       "every condition's top {depth} ({pairs} (query, chunk) pairs: {paid} paid, "
                       "{stored} from the store); {without} with nothing relevant in the pool are not scored.",
        "judged_kappa": " Against the gold of {n} of its questions ({pairs} pairs): Cohen's kappa {kappa}.",
        "score_note": "fail@k: no gold chunk in the top k. hit@k = 1 - fail@k; recall@k: the mean share of "
                      "a question's gold units (its passages, chunk ids or documents, or groups of them, any "
                      "member satisfying a group) with a chunk in the top k (the cookbook's Pass@k is the same "
                      "mean share, reported under both names); "
                      "doc recall@k: any chunk of a gold document in the top k. nDCG@k (linear gains, the "
                      "gold's grades) and R@k (the share of judged chunks in the top k) as trec_eval computes "
                      "them from runs/*.trec and runs/qrels.txt; doc nDCG@k and doc R@k on the document runs "
                      "(a document at the rank of its best chunk), runs/doc/.",
        "score_detail": "Every group and question set",
        "condition": "condition", "group": "group",
        "pairs_title": "Paired comparisons",
        "rule_title": "Decision rule (declared in the configuration before the run)",
        "primary_list": "Primary comparisons",
        "no_primary": "none (`pairs.primary` is empty, or names no condition this run has): no comparison is "
                      "primary, so this run gives no verdict.",
        "fallback": "A1 (the LLM context) is absent: no LLM backend is configured "
                    "(contexts.llm.backend), so the primary comparisons use {fallback} in place of A1.",
        "rule_text": "Difference = failure rate of B - failure rate of A. If the 95 % bootstrap interval of "
                     "the difference ({resamples:,} resamples, seed {seed}, resampling clusters: questions "
                     "with the same `cluster` field or, without one, the same part of the id matching `{cluster_key}`) excludes 0 on B's side, the comparison "
                     "\"{holds}\"; if it contains 0, it \"{undecided}\"; if it excludes 0 on the other "
                     "side, it \"{reversed}\".",
        "secondary_rule": "Every other comparison is secondary: one family of {n} comparisons with "
                          "Holm-adjusted sign-test p values. None of them is promoted to a conclusion.",
        "files_title": "Question files",
        "files_note": "content sha256: the set's questions in canonical JSON (a reformatting leaves it "
                      "unchanged). sha256 and modified (UTC): each source file as the questions stage read it.",
        "set": "set", "gold": "gold", "file": "file", "content_sha256": "content sha256",
        "modified": "modified (mtime)",
        "continuous_title": "Continuous measures: paired randomization test (own Holm family; no conclusions)",
        "continuous_rule": "{measures} per question, for each distinct A, B and group above (k plays no part): "
                           "the mean difference B - A (above 0: B ranks the gold higher) with its 95 % "
                           "cluster-bootstrap interval ({resamples:,} resamples, seed {seed}, the clusters of the "
                           "failure comparisons), and the two-sided paired randomization test (each question's "
                           "difference keeps its size and takes either sign) over every sign vector of the "
                           "questions that differ, none drawn: the law of the summed difference is the convolution "
                           "of one binomial law per distinct difference size, held exactly while its sums are few "
                           "and otherwise on a grid, where reciprocal ranks lie exactly (steps of 1/2520). Values "
                           "off the grid (nDCG's 1/log2(rank + 1)) are rounded to it and p is the middle of bounds "
                           "that hold whatever the rounding (marked *; the bounds in pairs.json, the grid refined "
                           "until they are {bound_gap} apart or it has {grid_max:,} points; a range when they "
                           "differ at the third decimal). These {n} tests are one Holm family of their own, apart "
                           "from the secondary family; none is a verdict.",
        "measure": "measure", "mean_of": "mean {side}", "nonzero": "questions differing", "role": "role",
        "role_primary": "primary", "role_secondary": "secondary",
        "primary": "Primary comparison {i}",
        "questions_n": "{n} questions", "fail_rate_at": "failure rate@{k}",
        "failures": "failures: {a} {fa}/{n}, {b} {fb}/{n}; difference (B - A) {diff:+.3f}",
        "counts": "both hit {both_hit}, both missed {both_missed}, only {a} {only_a}, only {b} {only_b}",
        "sign": "exact two-sided sign test on {d} discordant questions: p = {p:.3f}",
        "interval": "95 % bootstrap interval of the difference ({clusters} clusters, {resamples:,} "
                    "resamples, seed {seed}): [{lo:+.3f}, {hi:+.3f}]",
        "verdict": "verdict",
        "power_title": "power (exact sign test, alpha {alpha}, power {power:.0%}, observed discordance "
                       "{psi:.3f} = {d}/{n})",
        "mdd": "smallest difference detectable with {n} questions: {mdd}",
        "mdd_none": "none (with this discordance no difference reaches the power)",
        "needed": "questions needed to detect the observed difference {diff:.3f} (at this comparison's own "
                  "discordance, after the run; the preregistration plans at its planning pair's): {needed}",
        "needed_none": "not defined (no difference observed)",
        "needed_over": "more than {max_n:,}",
        "answer": "{a} vs {b} on {group} ({n} questions, failure@{k}): {verdict}, difference {diff:+.3f} (95 % "
                  "interval [{lo:+.3f}, {hi:+.3f}]); {mdd}; {needed}.",
        "answer_mdd": "these questions can see a difference of {mdd:.3f} or more",
        "answer_mdd_none": "no difference is within what these questions can see",
        "answer_needed": "about {n} questions would show the observed one",
        "answer_needed_none": "no difference was observed",
        "answer_needed_over": "more than {max_n:,} questions would be needed to show it",
        "flips": "Questions that flipped ({n})",
        "no_flips": "No question flipped.",
        "qid": "id", "question": "question", "gold_chunk": "gold chunk", "rank": "rank",
        "not_found": "not in top {depth}",
        "secondary_title": "Secondary comparisons (one family, Holm-adjusted; no conclusions)",
        "none_promoted": "None of these comparisons is promoted to a conclusion; they show where to look.",
        "diff": "difference", "interval_short": "95 % interval", "holm": "Holm p",
        "ledger_title": "Context cost ledger", "tokens_title": "Tokens and truncation",
        "ledger_labels": {},   # the ledger's own field names (contexts.ledger.summarize), and long_texts' words
        "token_head": ["variant", "model", "mean", "max", "over limit", "limit", "texts", "long texts",
                       "query prefix", "passage prefix"],
        "prefix_none": "none",
        "precision": "Embedding precision (settled once for the run)",
        "precision_how": {"configured": "configured", "auto on this machine": "auto on this machine",
                          "the backend's own": "the backend's own"},
        "ex_title": "Every question", "ex_link": "Every question, explorable: why a question flipped",
        "ex_note": "Each question with its group, gold chunk and rank under every condition (green: in the top k, "
                   "red: not; -: not in the run). Choose a comparison and k, filter, and click a question to see "
                   "its text, the gold chunk's text and contexts, and the top 5 of both sides (gold marked ★). A "
                   "question an LLM wrote has its set marked generated.",
        "ex_pair": "comparison", "ex_filter": "show", "ex_search": "search", "ex_all": "all",
        "ex_flipped": "flipped between A and B", "ex_failed": "failed everywhere", "ex_bm25": "only BM25 found it",
        "ex_question": "Question", "ex_gold_chunk": "gold chunk", "ex_context": "context", "ex_top": "top 5 of",
        "ex_rank": "rank", "ex_count": "{n} of {all} questions", "ex_generated": "generated",
        "plot_failure_panel": "failure rate@{k}, {group} (95 % Wilson)",
        "plot_diff_axis": "failure rate B - A (below 0: B fails less); red: primary, grey: secondary",
        "plot_diff_title": "Paired differences with 95 % cluster-bootstrap intervals",
        "plots_title": "Failure rates", "report_title": "Contextual Retrieval on {documents} ({corpus})",
        "documents": "{n} {language}document{s}",
        "corpus_line": "Corpus: {corpus}, {n} documents kept; language {language} ({how})",
        "language_found": "found in the text: {reason}; Hangul {hangul:.0%}, Latin {latin:.0%} of the letters",
        "language_mixed": "; a mixed corpus: {shares} of the documents, the majority's language for every document",
        "language_stated": "stated in corpus.language",
        "verdicts_title": "Verdicts of the primary comparisons",
        "prereg_title": "Preregistration (written by the free stages, before any paid call)",
        "prereg_note": "Written {written} (UTC). The run's report compares itself with this file: a question "
                       "edited, added or removed since, or a changed rule, is named there as a departure. "
                       "`make preregister` writes it again (docs/statistics.md: Decide before paying).",
        "prereg_committed": "What the run commits to",
        "prereg_power_setting": "Power analysis: the verdict's interval (normal approximation) and the exact "
                                "two-sided sign test, alpha {alpha}, power {power:.0%}.",
        "prereg_corpus": "Corpus ({format}, {path}): {files} files, sha256 {sha256}; {documents} documents kept, "
                         "{chunks} chunks.",
        "prereg_questions": "Questions: {n}, each hashed by its content (preregistration.json, `questions`).",
        "prereg_cost_title": "What the paid contexts (A1) will cost and take",
        "agreement_title": "Generated and human questions side by side",
        "agreement_note": "Each primary's rule applied to a generated group beside its verdict on the human "
                          "group (on the generated group not a preregistered verdict: for agreement only), and "
                          "how far the two groups order all conditions alike by the primary measure.",
        "agreement_title_judged": "Judged and human questions side by side",
        "agreement_note_judged": "Each primary's rule applied to a judged group (scored by the LLM's graded qrels) "
                                 "beside its verdict on the human group (on the judged group not a preregistered "
                                 "verdict: for agreement only), and how far the two groups order all conditions "
                                 "alike by the primary measure.",
        "agreement_primary": "primary", "agreement_on": "on {group}", "agreement_condition": "condition",
        "agreement_verdicts": "{a} vs {b}: on {human} {on_human}; on {generated} {on_generated}",
        "agreement_tau": "Kendall's τ-b between the orderings of the {n} conditions by {measure} on {human} and on "
                         "{generated}: {tau:.2f} (p {p:.3f}); the field's anchor: TREC DL 2023 found τ = "
                         "{anchor:g} between synthetic and human queries.",
        "agreement_tau_judged": "Kendall's τ-b between the orderings of the {n} conditions by {measure} on {human} "
                                "and on {generated}: {tau:.2f} (p {p:.3f}).",
        "agreement_pair": "Kendall's τ is not given: with {n} conditions (one pair) the orderings by {measure} on "
                          "{human} and on {generated} can only agree or reverse (τ = ±1 by construction); the "
                          "verdicts side by side are the comparison.",
        "agreement_ties": "Kendall's τ is undefined: on {side} all {n} conditions have the same {measure}, which "
                          "orders nothing.",
        "effect_title": "Questions for the smallest effect of interest ({effect:g})",
        "effect_pilot": "From the free pilot {a} vs {b} on {group} ({n} questions), at alpha {alpha}, power {power:.0%}:",
        "effect_sign": "exact sign test at the pilot's discordance {psi:.3f}",
        "effect_randomization": "paired randomization test, simulated on the pilot's paired differences (sd {sd:.3f}) "
                                "shifted to the effect: {trials:,} experiments of {flips:,} sign flips per n, "
                                "seed {seed}",
        "effect_measure": "measure", "effect_test": "planned with", "effect_needed": "questions needed",
        "effect_generating": "generating them (online / batch API)",
        "effect_none": "not reachable (no difference in the pilot, or over the cap)",
        "effect_cost": "Generating {n:,} questions with {model} (`generate`, one call each, {tokens:,} prompt and "
                       "{out} reply tokens a call, nothing cached): ${online:,.2f} online, about {time} one call at "
                       "a time at {seconds:g} s a call (contexts.seconds_per_call){batch}. These are the questions "
                       "kept: the rounds ask as many more as the filters drop, and cost and time grow alike.",
        "effect_cost_batch": "; ${batch:,.2f} by a batch API, answered within its 24-hour window",
        "effect_unpriced": "Generating them is not priced: no LLM backend (contexts.llm).",
        "effect_no_pilot": "No free pilot pair with questions: nothing to plan the smallest effect from.",
        "plan_cost": "estimate for {backend} {model} (prices {version}): {calls:,} calls, input {tokens:,} tokens, "
                     "output {output:,} tokens, ${dollars:,.2f}",
        "plan_cost_batch": " (the same calls online ${online:,.2f}, by a batch API ${batch:,.2f}; this backend "
                           "pays the {paid} price)",
        "plan_pays_online": "online",
        "plan_pays_batch": "batch",
        "plan_no_estimate": "A1 is not configured (contexts.llm.backend): no cost estimate; set a backend and "
                            "preregister again before paying.",
        "free_time": "embedding with {slot}: {texts:,} texts ({variants} variants x {chunks:,} chunks + {questions:,} "
                     "questions; those already in the store are not embedded again) at {rate:.1f} texts/s, measured on "
                     "this machine at {threads} threads over {measured_texts:,} texts: about {time} with "
                     "{threads} threads, {time_cores} with {cores} cores ({jobs} jobs at once)",
        "time_units": ["{:.0f} min", "{:.1f} h", "{:.1f} days"],
        "free_time_none": "embedding with {slot}: {texts:,} texts ({variants} variants x {chunks:,} chunks + "
                          "{questions:,} questions); no speed measured on this machine yet for this model at "
                          "{threads} threads: run once on a sample (corpus.sample) and estimate again",
        "plan_duration": "duration: {hours:.1f} h with {workers} documents at once (llm_workers), "
                         "{seconds:g} s a call (contexts.seconds_per_call)",
        "prereg_power_title": "What these questions can detect",
        "plan_pair": "planning pair (the nearest free conditions): {a} vs {b}, discordant on {d} of {n} "
                     "questions (discordance {psi:.3f})",
        "plan_observed": "failure-rate difference of the planning pair ({b} - {a}): {diff:+.3f}",
        "plan_missing": "No power estimate: its planning pair needs {c}, which this run does not compute "
                        "(add pairs.fallback_variant to that model's variants; X1 also needs contexts.free)",
        "plan_no_pilot": "No power estimate before paying: no free pilot stands in for {a} vs {b}; with each "
                         "paid context replaced by its free stand-in (pairs.fallback_variant) both sides are {c}, "
                         "one condition against itself. pairs.md gives this comparison's power after the run, at "
                         "its own discordance",
        "plan_mdd": "With {n} questions this comparison can only see a difference of {mdd:.3f} or more "
                    "(power {power:.0%})",
        "plan_mdd_none": "With {n} questions no difference reaches power {power:.0%} in this comparison",
        "plan_reference": "the reference's effects were 0.025–0.037",
        "plan_assumes": "These figures assume the planning pair's discordance, measured before anything is paid; "
                        "pairs.md gives each comparison's own, after the run.",
        "plan_floor": "a difference larger than the planning discordance is planned at a discordance equal to "
                      "it (every disagreeing question going one way: the fewest questions it can need)",
        "plan_test": "test (alpha {alpha}, power {power:.0%})",
        "plan_mdd_short": "smallest difference seen with {n} questions",
        "plan_needed_short": "questions for {diff}",
        "plan_interval": "the verdict's 95 % cluster-bootstrap interval (normal approximation)",
        "plan_sign": "exact sign test",
        "plan_needs": "a difference of {diff} needs {n} questions",
        "plan_needs_over": "a difference of {diff} needs more than {max_n:,} questions",
        "kept_title": "Kept to the plan",
        "kept_yes": "The run kept to its preregistration of {written}: the same questions (by content hash), "
                    "the same primary comparisons and verdict rule, the same settings and the same chunks.",
        "kept_no": "The run departs from its preregistration of {written}; its verdicts are not those of "
                   "the preregistered run:",
        "kept_edited": "{n} questions edited since: {ids}",
        "kept_added": "{n} questions added since: {ids}",
        "kept_removed": "{n} questions removed since: {ids}",
        "kept_after_paid": "it was written after the paid runs it would judge (A1's, of {paid} UTC): a "
                           "preregistration deleted and written again; it fixes nothing in advance",
        "kept_rule": "{key} changed: preregistered {then}, now {now}",
        "warnings_title": "Warnings",
        "warn_sample": "question set {set}: its sample ({sample}) is above its {size} questions, so all {size} "
                       "are used; lower questions.sets.{set}.sample or leave it 0",
        "warn_language": "corpus.language is {language}, but {share:.0%} of the kept documents' letters are "
                         "Hangul: the prompt's language, the Hangul check of contexts, the BM25 analyser and "
                         "the report's language follow corpus.language; set it to the text's language",
        "warn_question_language": "question set {set}: its questions are in {language} ({share:.0%} of them), "
                                  "the corpus in {corpus}: BM25 analyses them with the corpus's analyser, so only "
                                  "words both languages share (names, identifiers) can match",
        "warn_cluster_key": "questions.cluster_key {cluster_key!r} matches no question id: each of the {n} "
                            "questions is a bootstrap cluster of its own (an H question and its P paraphrase "
                            "are not paired); fix the pattern or give the questions a `cluster`",
    },
    "ko": {
        "holds": "성립",
        "undecided": "이 질문 수로는 구분할 수 없다",
        "reversed": "반대로 나왔다",
        "equivalent": "±{margin:g} 안에서 동등하다",
        "bca": "BCa 부트스트랩 구간 (편향 보정·가속, 같은 재표본): [{lo:+.3f}, {hi:+.3f}]",
        "review_counts": "생성된 질문, 검토 {mode}: 채택 {accepted}, 기각 {rejected}, 미검토 {not_reviewed}",
        "rule_cluster_t": "판정은 부트스트랩 구간 대신 군집 강건 t 구간을 본다 (pairs.interval: cluster_t).",
        "cluster_t": "군집 강건 t 구간 (군집 {clusters}개, 자유도 {df}의 t; 재표본 없음): [{lo:+.3f}, {hi:+.3f}]",
        "tost": "±{margin:g} 안의 동등성 (TOST, 유의수준 {alpha}): 정확한 무조건 검정 (Berger-Boos) "
                "p = {p_lower:.3f} (차이 <= -{margin:g}), {p_upper:.3f} (차이 >= +{margin:g}); "
                "{level:.0%} 군집 부트스트랩 구간 [{lo:+.3f}, {hi:+.3f}] {inside}: {said}",
        "tost_inside": "한계 안", "tost_outside": "한계 밖",
        "tost_yes": "동등하다", "tost_no": "동등성이 보이지 않았다",
        "power_clustered": "군집을 고려하면 (설계 효과 {deff:.2f} = 1 + ({size:.2f} - 1) x ICC {icc:.3f}, "
                           "판정 구간): 최소 차이 {mdd}; 필요한 질문 수 {needed}",
        "equivalence_column": "TOST p (±한계)",
        "bh": "BH p",
        "secondary_rule_bh": "나머지 비교는 모두 이차 비교다: {n}개 비교가 한 묶음이며 부호 검정 p 값은 "
                             "Benjamini-Hochberg(거짓 발견률)로 보정한다. 어느 것도 결론으로 승격하지 않는다.",
        "prereg_equivalence": "동등성 한계 (TOST, 유의수준 {alpha}; 구간이 0을 포함하고 TOST가 양쪽을 모두 "
                              "기각하면 판정은 \"±한계 안에서 동등하다\"): {margins}.",
        "plan_equivalence": "실제 차이가 0일 때 ±{margin:g} 안의 동등성을 보이려면 (불일치율 {psi:.3f}에서 TOST의 "
                            "정규 근사, 검정력 {power:.0%}): 독립 가정 {n}문항, 군집 고려 {nc}문항",
        "plan_clustered": "계획 쌍의 문항별 차이의 설계 효과: {deff:.2f} = 1 + ({size:.2f} - 1) x ICC {icc:.3f}; "
                          "계획 문장은 군집을 고려한 수치다",
        "plan_interval_clustered": "판정 구간, 군집 고려 (설계 효과 {deff:.2f})",
        "score_title": "점수",
        "judged_line": "판정 세트 {set}: 질문 {questions}개, 모든 조건의 상위 {depth}개를 모은 풀을 LLM이 0-3 등급으로 "
                       "판정했다((질의, 청크) 쌍 {pairs}개: {paid}개 지불, {stored}개 저장소에서); 풀에 "
                       "관련 청크가 없는 {without}개는 채점하지 않는다.",
        "judged_kappa": " 질문 {n}개의 정답과 비교({pairs}쌍): 코헨의 카파 {kappa}.",
        "score_note": "fail@k: 정답 청크가 상위 k개에 하나도 없음. hit@k = 1 - fail@k; recall@k: 질문의 정답 "
                      "단위(정답 문장, 청크 id, 문서, 또는 그 묶음: 묶음은 하나만 찾아도 충족) 가운데 "
                      "그 청크가 상위 k개에 든 단위의 비율의 평균 "
                      "(cookbook의 Pass@k도 같은 평균 비율이며 두 이름으로 모두 싣는다); doc recall@k: 정답 "
                      "문서의 청크가 상위 k개에 하나라도 있음. nDCG@k(정답 등급을 그대로 이득으로 씀)와 "
                      "R@k(판정된 청크 가운데 상위 k개에 든 비율)는 trec_eval이 runs/*.trec와 runs/qrels.txt로 "
                      "계산하는 값과 같다; doc nDCG@k와 doc R@k는 문서 런(문서는 가장 높은 청크의 순위, "
                      "runs/doc/)에서 계산한다.",
        "score_detail": "모든 그룹과 질문 세트",
        "condition": "조건", "group": "그룹",
        "pairs_title": "짝 비교",
        "rule_title": "판정 규칙 (실행 전에 설정 파일에 선언)",
        "primary_list": "주 비교",
        "no_primary": "없다(`pairs.primary`가 비어 있거나 이 실행에 있는 조건을 하나도 적지 않았다): 주 비교가 "
                      "없으므로 이 실행에는 판정이 없다.",
        "fallback": "A1(LLM 문맥)이 없다: LLM 백엔드가 설정되지 않아(contexts.llm.backend) 주 비교는 "
                    "A1 대신 {fallback}을 쓴다.",
        "rule_text": "차이 = B의 실패율 - A의 실패율. 차이의 95 % 부트스트랩 구간(재표본 {resamples:,}회, "
                     "seed {seed}, `cluster` 필드가 같은 질문, 그 필드가 없으면 질문 id에서 `{cluster_key}`에 맞는 부분이 같은 질문을 한 클러스터로 묶어 재표본)이 B 쪽에서 0을 "
                     "배제하면 \"{holds}\", 0을 포함하면 \"{undecided}\", 반대쪽에서 0을 배제하면 "
                     "\"{reversed}\".",
        "secondary_rule": "그 밖의 비교는 모두 이차 비교다: {n}개 비교를 한 가족으로 보고 부호 검정 p값을 "
                          "Holm 방식으로 보정한다. 어느 것도 결론으로 승격하지 않는다.",
        "files_title": "질문 파일",
        "files_note": "content sha256은 세트의 질문을 정규 JSON으로 적어 계산한 값이다(형식만 바꾸면 그대로다). "
                      "sha256과 수정 시각(UTC)은 questions 단계가 읽을 때의 각 원본 파일이다.",
        "set": "세트", "gold": "정답", "file": "파일", "content_sha256": "content sha256",
        "modified": "수정 시각 (mtime)",
        "continuous_title": "연속 측도: 짝 무작위화 검정 (별도 Holm 가족; 결론 아님)",
        "continuous_rule": "질문별 {measures}를 위의 서로 다른 A, B, 그룹마다 비교한다(k와는 무관): 평균 차이 "
                           "B - A(0보다 크면 B가 정답을 더 위에 둔다)와 그 95 % 클러스터 부트스트랩 구간(재표본 "
                           "{resamples:,}회, seed {seed}, 실패율 비교와 같은 클러스터), 그리고 양측 짝 무작위화 "
                           "검정(각 질문의 차이는 크기를 유지하고 부호만 바뀐다)을 값이 다른 질문의 모든 부호 "
                           "조합에 대해 표집 없이 계산한다: 차이 합의 분포는 서로 다른 차이 크기마다 하나씩인 "
                           "이항 분포의 합성곱이며, 합의 가짓수가 적으면 정확히, 아니면 격자 위에서 구한다(역순위는 "
                           "1/2520 간격의 격자 위에 정확히 놓인다). 격자 밖의 값(nDCG의 1/log2(순위 + 1))은 격자로 "
                           "반올림하고, p는 반올림이 어떻든 성립하는 하한과 상한의 가운데다(* 표시; 하한과 상한은 "
                           "pairs.json에 있고, 둘의 차이가 {bound_gap} 이하가 되거나 격자 점이 {grid_max:,}개가 "
                           "될 때까지 격자를 세밀하게 한다; 소수 셋째 자리에서 다르면 범위로 보인다). 이 {n}개 "
                           "검정은 이차 비교와 별도의 Holm 가족이며 어느 것도 판정이 아니다.",
        "measure": "측도", "mean_of": "{side} 평균", "nonzero": "값이 다른 질문", "role": "구분",
        "role_primary": "주", "role_secondary": "이차",
        "primary": "주 비교 {i}",
        "questions_n": "{n}문항", "fail_rate_at": "실패율@{k}",
        "failures": "실패: {a} {fa}/{n}, {b} {fb}/{n}; 차이 (B - A) {diff:+.3f}",
        "counts": "둘 다 적중 {both_hit}, 둘 다 실패 {both_missed}, {a}만 적중 {only_a}, {b}만 적중 {only_b}",
        "sign": "불일치 {d}문항에 대한 정확한 양측 부호 검정: p = {p:.3f}",
        "interval": "차이의 95 % 부트스트랩 구간 (클러스터 {clusters}개, 재표본 {resamples:,}회, "
                    "seed {seed}): [{lo:+.3f}, {hi:+.3f}]",
        "verdict": "판정",
        "power_title": "검정력 (정확한 부호 검정, 유의수준 {alpha}, 검정력 {power:.0%}, 관측 불일치율 "
                       "{psi:.3f} = {d}/{n})",
        "mdd": "{n}문항으로 검출할 수 있는 최소 차이: {mdd}",
        "mdd_none": "없음 (이 불일치율로는 어떤 차이도 그 검정력에 이르지 못한다)",
        "needed": "관측된 차이({diff:.3f})를 검출하는 데 필요한 질문 수 (실행 뒤 이 비교 자신의 불일치율 기준; "
                  "사전 등록은 계획 쌍의 불일치율로 계획한다): {needed}",
        "needed_none": "정의되지 않음 (관측된 차이가 없다)",
        "needed_over": "{max_n:,}개 초과",
        "answer": "{group}({n}문항, failure@{k})에서 {a} 대 {b}: {verdict}, 차이 {diff:+.3f} (95 % 구간 "
                  "[{lo:+.3f}, {hi:+.3f}]); {mdd}; {needed}.",
        "answer_mdd": "이 질문들로 볼 수 있는 차이는 {mdd:.3f} 이상이다",
        "answer_mdd_none": "이 질문들로 볼 수 있는 차이가 없다",
        "answer_needed": "관측된 차이를 보이려면 약 {n}개의 질문이 필요하다",
        "answer_needed_none": "관측된 차이가 없다",
        "answer_needed_over": "관측된 차이를 보이려면 {max_n:,}개보다 많은 질문이 필요하다",
        "flips": "결과가 뒤바뀐 질문 ({n})",
        "no_flips": "결과가 뒤바뀐 질문이 없다.",
        "qid": "id", "question": "질문", "gold_chunk": "정답 청크", "rank": "순위",
        "not_found": "상위 {depth} 밖",
        "secondary_title": "이차 비교 (한 가족, Holm 보정; 결론 아님)",
        "none_promoted": "이 비교들은 어느 것도 결론으로 승격하지 않는다; 어디를 볼지 알려 줄 뿐이다.",
        "diff": "차이", "interval_short": "95 % 구간", "holm": "Holm p",
        "ledger_title": "문맥 비용 장부", "tokens_title": "토큰과 잘림",
        "ledger_labels": {
            "results": "작성된 문맥", "chunks": "청크", "failed": "실패", "calls": "호출", "discarded": "버린 답",
            "malformed_usage": "사용량 기록 오류", "priced_at": "가격 기준", "online": "온라인", "batch": "배치",
            "model_keys": "모델", "turns": "턴", "usage": "토큰 사용량", "input_tokens": "입력 토큰",
            "output_tokens": "출력 토큰", "cache_creation_input_tokens": "캐시에 쓴 입력 토큰",
            "cache_read_input_tokens": "캐시에서 읽은 입력 토큰", "input_tokens_total": "입력 토큰 합계",
            "cache_read_share": "캐시에서 읽은 비율", "cost_usd": "비용 (USD)", "cost_per_call": "호출당 비용",
            "min": "최소", "median": "중앙값", "p90": "90번째 백분위", "max": "최대", "first_start": "첫 호출",
            "last_end": "마지막 응답", "elapsed_hours": "걸린 시간 (시간)", "document_tokens": "문서 토큰",
            "cost_per_million_document_tokens": "문서 토큰 백만 개당 비용", "truncated": "잘라 냄",
            "windowed": "창으로 나눔"},
        "token_head": ["변형", "모델", "평균", "최대", "한도 초과", "한도", "텍스트", "긴 텍스트", "질의 접두어",
                       "문단 접두어"],
        "prefix_none": "없음",
        "precision": "임베딩 정밀도 (실행마다 한 번 정함)",
        "precision_how": {"configured": "설정대로", "auto on this machine": "이 기계에서 auto로 정함",
                          "the backend's own": "백엔드 고유"},
        "ex_title": "모든 질문", "ex_link": "모든 질문 살펴보기: 질문의 결과가 왜 뒤바뀌었는가",
        "ex_note": "질문마다 그룹, 정답 청크, 조건별 순위(초록: 상위 k 안, 빨강: 밖; -: 런에 없음). 비교와 k를 고르고 "
                   "거른 뒤 질문을 누르면 질문 본문, 정답 청크의 본문과 문맥, 양쪽의 상위 5개(정답 ★)가 열린다. "
                   "LLM이 쓴 질문은 세트 옆에 '생성' 표시가 붙는다.",
        "ex_pair": "비교", "ex_filter": "보기", "ex_search": "찾기", "ex_all": "전체",
        "ex_flipped": "A와 B 사이에 뒤바뀜", "ex_failed": "모든 조건에서 실패", "ex_bm25": "BM25만 찾음",
        "ex_question": "질문", "ex_gold_chunk": "정답 청크", "ex_context": "문맥", "ex_top": "상위 5개:",
        "ex_rank": "순위", "ex_count": "{all}문항 중 {n}문항", "ex_generated": "생성",
        "plot_failure_panel": "실패율@{k}, {group} (95 % Wilson)",
        "plot_diff_axis": "실패율 B - A (0보다 작으면 B가 덜 실패); 빨강: 주 비교, 회색: 이차 비교",
        "plot_diff_title": "짝 차이와 95 % 클러스터 부트스트랩 구간",
        "plots_title": "실패율", "report_title": "{documents}에서의 Contextual Retrieval ({corpus})",
        "documents": "{language}문서 {n}건",
        "corpus_line": "말뭉치: {corpus}, 남긴 문서 {n}건; 언어 {language} ({how})",
        "language_found": "본문에서 찾음: 한글 {hangul:.0%}, 라틴 문자 {latin:.0%}",
        "language_mixed": "; 여러 언어가 섞인 말뭉치: 문서의 {shares}, 모든 문서에 다수 언어를 적용",
        "language_stated": "corpus.language에 지정",
        "verdicts_title": "주 비교의 판정",
        "prereg_title": "사전 등록 (무료 단계가 유료 호출 전에 작성)",
        "prereg_note": "작성 시각 {written} (UTC). 실행 보고서는 이 파일과 비교된다: 이후 수정·추가·삭제된 "
                       "질문이나 바뀐 규칙은 보고서에 이탈로 적힌다. 다시 쓰려면 `make preregister` "
                       "(docs/statistics.md: Decide before paying).",
        "prereg_committed": "이 실행이 약속하는 것",
        "prereg_power_setting": "검정력 분석: 판정 구간(정규 근사)과 정확한 양측 부호 검정, 유의수준 {alpha}, "
                                "검정력 {power:.0%}.",
        "prereg_corpus": "코퍼스 ({format}, {path}): 파일 {files}개, sha256 {sha256}; 남긴 문서 {documents}개, "
                         "청크 {chunks}개.",
        "prereg_questions": "질문: {n}개, 각각 내용으로 해시함 (preregistration.json의 `questions`).",
        "prereg_cost_title": "유료 문맥(A1)의 비용과 시간",
        "agreement_title": "생성한 질문과 사람이 쓴 질문 나란히",
        "agreement_note": "각 주 비교의 규칙을 생성한 그룹에 적용한 결과를 사람이 쓴 그룹의 판정 옆에 둔다 "
                          "(생성한 그룹의 판정은 사전 등록한 판정이 아니라 일치를 보기 위한 것이다). 두 그룹이 "
                          "주 지표로 모든 조건을 얼마나 같은 순서로 세우는지도 보인다.",
        "agreement_title_judged": "LLM이 판정한 질문과 사람이 쓴 질문 나란히",
        "agreement_note_judged": "각 주 비교의 규칙을 판정한 그룹(LLM이 매긴 등급의 qrels로 채점)에 적용한 결과를 "
                                 "사람이 쓴 그룹의 판정 옆에 둔다 (판정한 그룹의 판정은 사전 등록한 판정이 아니라 "
                                 "일치를 보기 위한 것이다). 두 그룹이 주 지표로 모든 조건을 얼마나 같은 순서로 "
                                 "세우는지도 보인다.",
        "agreement_primary": "주 비교", "agreement_on": "{group}에서", "agreement_condition": "조건",
        "agreement_verdicts": "{a} 대 {b}: {human}에서 {on_human}; {generated}에서 {on_generated}",
        "agreement_tau": "{human}과 {generated}에서 {measure}로 세운 조건 {n}개의 순서 사이의 Kendall τ-b: "
                         "{tau:.2f} (p {p:.3f}); 이 분야의 기준점: TREC DL 2023에서 합성 질의와 사람 질의 사이 "
                         "τ = {anchor:g}.",
        "agreement_tau_judged": "{human}과 {generated}에서 {measure}로 세운 조건 {n}개의 순서 사이의 Kendall τ-b: "
                                "{tau:.2f} (p {p:.3f}).",
        "agreement_pair": "Kendall τ는 내지 않는다: 조건이 {n}개(한 쌍)뿐이면 {human}과 {generated}에서 "
                          "{measure}로 세운 순서는 같거나 뒤집힐 수밖에 없다(정의상 τ = ±1); 나란히 놓은 판정이 "
                          "비교다.",
        "agreement_ties": "Kendall τ는 정의되지 않는다: {side}에서 조건 {n}개의 {measure}가 모두 같아 순서가 없다.",
        "effect_title": "관심 있는 가장 작은 효과({effect:g})에 필요한 질문",
        "effect_pilot": "무료 예비 비교 {a} 대 {b}, {group} (질문 {n}개)에서, 유의수준 {alpha}, 검정력 {power:.0%}:",
        "effect_sign": "예비 비교의 불일치율 {psi:.3f}에서 정확한 부호 검정",
        "effect_randomization": "짝지은 무작위화 검정, 예비 비교의 짝지은 차이(표준편차 {sd:.3f})를 효과만큼 옮겨 "
                                "모의실험: n마다 실험 {trials:,}번, 검정마다 부호 뒤집기 {flips:,}번, 시드 {seed}",
        "effect_measure": "지표", "effect_test": "계획 방법", "effect_needed": "필요한 질문",
        "effect_generating": "생성 비용 (온라인 / 배치 API)",
        "effect_none": "도달할 수 없음 (예비 비교에 차이가 없거나 상한 초과)",
        "effect_cost": "{model}로 질문 {n:,}개 생성 (`generate`, 질문마다 호출 한 번, 호출당 프롬프트 {tokens:,} 토큰, "
                       "답 {out} 토큰, 캐시 없음): 온라인 ${online:,.2f}, 호출당 {seconds:g}초"
                       "(contexts.seconds_per_call)로 한 번에 하나씩 약 {time}{batch}. 이는 남길 질문 수다: 필터가 "
                       "버리는 만큼 라운드가 더 요청하므로 비용과 시간도 그만큼 는다.",
        "effect_cost_batch": "; 배치 API ${batch:,.2f}, 24시간 창 안에 답함",
        "effect_unpriced": "생성 비용은 계산하지 않음: LLM 백엔드 없음 (contexts.llm).",
        "effect_no_pilot": "질문이 있는 무료 예비 비교가 없어 가장 작은 효과를 계획할 수 없음.",
        "plan_cost": "{backend} {model} 추정 (가격표 {version}): 호출 {calls:,}회, 입력 {tokens:,} 토큰, "
                     "출력 {output:,} 토큰, ${dollars:,.2f}",
        "plan_cost_batch": " (같은 호출이 온라인 ${online:,.2f}, 배치 API ${batch:,.2f}; 이 백엔드는 {paid} 가격을 "
                           "낸다)",
        "plan_pays_online": "온라인",
        "plan_pays_batch": "배치",
        "plan_no_estimate": "A1이 설정되지 않았다 (contexts.llm.backend): 비용 추정 없음; 백엔드를 설정하고 "
                            "비용을 내기 전에 다시 사전 등록하라.",
        "free_time": "{slot} 임베딩: 텍스트 {texts:,}개 (변형 {variants}개 x 청크 {chunks:,}개 + 질문 {questions:,}개; "
                     "저장소에 이미 있는 것은 다시 임베딩하지 않는다), 이 기계에서 스레드 {threads}개로 텍스트 "
                     "{measured_texts:,}개에 걸쳐 잰 속도 초당 {rate:.1f}개: 스레드 {threads}개로 약 {time}, "
                     "코어 {cores}개로 {time_cores} (작업 {jobs}개 동시)",
        "time_units": ["{:.0f}분", "{:.1f}시간", "{:.1f}일"],
        "free_time_none": "{slot} 임베딩: 텍스트 {texts:,}개 (변형 {variants}개 x 청크 {chunks:,}개 + 질문 "
                          "{questions:,}개); 이 모델을 스레드 {threads}개로 돌린 속도를 이 기계에서 아직 재지 않았다: "
                          "표본(corpus.sample)으로 한 번 실행한 뒤 다시 추정한다",
        "plan_duration": "소요 시간: 문서 {workers}개 동시 처리(llm_workers), 호출당 {seconds:g}초"
                         "(contexts.seconds_per_call)로 {hours:.1f}시간",
        "prereg_power_title": "이 질문들로 검출할 수 있는 것",
        "plan_pair": "계획 쌍 (가장 가까운 무료 조건): {a} vs {b}, {n}문항 중 {d}문항 불일치 "
                     "(불일치율 {psi:.3f})",
        "plan_observed": "계획 쌍의 실패율 차이 ({b} - {a}): {diff:+.3f}",
        "plan_missing": "검정력 추정 없음: 계획 쌍에 필요한 {c}를 이 실행이 계산하지 않는다 "
                        "(그 모델의 variants에 pairs.fallback_variant를 더하라; X1은 contexts.free도 필요하다)",
        "plan_no_pilot": "돈을 쓰기 전의 검정력 추정 없음: {a} vs {b}를 대신할 무료 예비 비교가 없다; 유료 문맥을 "
                         "무료 대역(pairs.fallback_variant)으로 바꾸면 양쪽 모두 {c}, 같은 조건끼리다. pairs.md가 실행 "
                         "뒤 이 비교 자신의 불일치율로 검정력을 준다",
        "plan_mdd": "{n}문항으로는 이 비교가 {mdd:.3f} 이상의 차이만 볼 수 있다 (검정력 {power:.0%})",
        "plan_mdd_none": "{n}문항으로는 이 비교에서 어떤 차이도 검정력 {power:.0%}에 이르지 못한다",
        "plan_reference": "참조 실행의 효과는 0.025–0.037이었다",
        "plan_assumes": "이 수치는 돈을 쓰기 전에 잰 계획 쌍의 불일치율을 가정한다; pairs.md는 실행 뒤 각 비교 자신의 "
                        "불일치율로 다시 계산한다.",
        "plan_floor": "계획 불일치율보다 큰 차이는 불일치율을 그 차이와 같게 두고 계획한다 (불일치 문항이 "
                      "모두 한쪽으로 간 경우: 그 차이에 필요한 가장 적은 질문 수)",
        "plan_test": "검정 (유의수준 {alpha}, 검정력 {power:.0%})",
        "plan_mdd_short": "{n}문항으로 보이는 최소 차이",
        "plan_needed_short": "{diff}에 필요한 질문 수",
        "plan_interval": "판정에 쓰는 95 % 클러스터 부트스트랩 구간 (정규 근사)",
        "plan_sign": "정확한 부호 검정",
        "plan_needs": "{diff}의 차이에는 {n}문항이 필요하다",
        "plan_needs_over": "{diff}의 차이에는 {max_n:,}문항보다 많이 필요하다",
        "kept_title": "계획 준수",
        "kept_yes": "이 실행은 {written}의 사전 등록을 지켰다: 질문(내용 해시), 주 비교, 판정 규칙, 설정, 청크가 같다.",
        "kept_no": "이 실행은 {written}의 사전 등록에서 벗어났다; 아래 판정은 사전 등록된 실행의 판정이 아니다:",
        "kept_edited": "이후 수정된 질문 {n}개: {ids}",
        "kept_added": "이후 추가된 질문 {n}개: {ids}",
        "kept_removed": "이후 삭제된 질문 {n}개: {ids}",
        "kept_after_paid": "사전 등록이 판정할 유료 실행(A1, {paid} UTC)보다 나중에 쓰였다: 지워지고 다시 쓰인 "
                           "사전 등록이라 미리 정한 것이 없다",
        "kept_rule": "{key} 바뀜: 사전 등록 {then}, 지금 {now}",
        "warnings_title": "경고",
        "warn_sample": "질문 세트 {set}: 표본 크기({sample})가 질문 수 {size}보다 커서 {size}문항을 모두 쓴다; "
                       "questions.sets.{set}.sample을 줄이거나 0으로 둔다",
        "warn_language": "corpus.language가 {language}인데 남긴 문서의 글자 중 {share:.0%}가 한글이다: 프롬프트의 "
                         "언어, 문맥의 한글 검사, BM25 분석기, 보고서의 언어가 corpus.language를 따르니 본문의 "
                         "언어로 맞춘다",
        "warn_question_language": "질문 세트 {set}: 질문은 {language}({share:.0%}), 말뭉치는 {corpus}이다: BM25는 "
                                  "질문도 말뭉치의 분석기로 분석하므로 두 언어에 같은 단어(이름, 식별자)만 맞는다",
        "warn_cluster_key": "questions.cluster_key {cluster_key!r}에 맞는 질문 id가 없다: 질문 {n}개가 각각 "
                            "하나의 부트스트랩 클러스터다(H 질문과 그 P 바꿔 쓰기가 짝지어지지 않는다); 패턴을 "
                            "고치거나 질문에 `cluster`를 준다",
    },
}


def wording(language: str) -> dict[str, str]:
    if language not in WORDING:
        raise InputError(f"config report.language: {language!r} is not one of {list(LANGUAGES)}")
    return WORDING[language]
