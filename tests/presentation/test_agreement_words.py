"""The words of the generated and human groups side by side: a tau with its anchor, and, with one
pair of conditions, a sentence saying why no tau is given instead of a number."""
from ctxret.evaluation.agreement import ordering_agreement
from ctxret.presentation.pages import agreement_markdown
from ctxret.presentation.wording import wording


def record(human, generated):
    side = {"N": 40, "diff": -0.05, "ci": [-0.1, 0.0], "sign_p": 0.2, "verdict": "undecided"}
    return {"human": "HP", "generated": "Gen", "measure": "failure@5", "k": 5,
            "failure": {"human": human, "generated": generated}, **ordering_agreement(human, generated),
            "verdicts": [{"a": "e5:T1", "b": "e5:X1", "human": side, "generated": {**side, "verdict": "holds"}}]}


def test_with_one_pair_the_report_says_why_there_is_no_tau():
    text = "\n".join(agreement_markdown([record({"e5:T1": 0.2, "e5:X1": 0.1}, {"e5:T1": 0.3, "e5:X1": 0.1})],
                                        wording("en")))
    assert "Kendall's τ is not given: with 2 conditions (one pair)" in text and "τ-b between" not in text
    assert "| e5:T1 vs e5:X1 | cannot be distinguished with this many questions (-0.050, [-0.100, +0.000], N 40) " \
           "| holds (-0.050, [-0.100, +0.000], N 40) |" in text


def test_with_three_conditions_or_more_tau_is_given_beside_the_field_anchor():
    human = {"bm25:T1": 0.3, "e5:T1": 0.2, "e5:X1": 0.1}
    a = record(human, {"bm25:T1": 0.25, "e5:T1": 0.2, "e5:X1": 0.05})
    text = "\n".join(agreement_markdown([a], wording("en")))
    assert (f"Kendall's τ-b between the orderings of the 3 conditions by failure@5 on HP and on Gen: {a['tau']:.2f} "
            f"(p {a['p']:.3f}); the field's anchor: TREC DL 2023 found τ = 0.85 between synthetic and human queries."
            in text)


def test_a_judged_group_has_a_section_of_its_own_after_the_generated_ones_and_no_synthetic_anchor():
    human = {"bm25:T1": 0.3, "e5:T1": 0.2, "e5:X1": 0.1}
    judged = {"bm25:T1": 0.4, "e5:T1": 0.1, "e5:X1": 0.2}
    side = {"N": 12, "diff": 0.1, "ci": [0.0, 0.2], "sign_p": 0.3, "verdict": "undecided"}
    j = {"human": "HP", "judged": "Q", "measure": "failure@5", "k": 5, "failure": {"human": human, "judged": judged},
         **ordering_agreement(human, judged, None), "verdicts": [{"a": "e5:T1", "b": "e5:X1", "human": side,
                                                                   "judged": side}]}
    text = "\n".join(agreement_markdown([record(human, human), j], wording("en")))
    generated, judged_at = text.index("## Generated and human questions"), text.index("## Judged and human questions")
    assert generated < judged_at and "### HP / Q (failure@5)" in text[judged_at:]
    assert text[judged_at:].count("TREC DL 2023") == 0 and text[:judged_at].count("TREC DL 2023") == 1
    assert (f"on HP and on Q: {j['tau']:.2f} (p {j['p']:.3f})." in text[judged_at:]
            and "| failure@5 HP | failure@5 Q |" in text)
