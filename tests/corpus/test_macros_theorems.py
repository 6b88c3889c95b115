from corpus_build.macros import collect_macros, expand_macros
from corpus_build.theorems import kind_for, parse_theorem_decls, theorem_wrappers


def test_collect_and_expand_macros_with_arguments_defaults_def_and_operators():
    m = collect_macros(
        r"\newcommand{\R}{\mathbb{R}}\newcommand\pair[2][x]{(#1,#2)}\def\abs#1{|#1|}"
        r"\DeclareMathOperator{\Hom}{Hom}\providecommand{\R}{WRONG}"
    )
    assert set(m) == {"R", "pair", "abs", "Hom"}
    assert expand_macros(r"$\pair{y} \pair[z]{w} \abs{\R} \Hom$", m) == r"$(x,y) (z,w) |\mathbb{R}| \operatorname{Hom}$"


def test_expansion_is_bounded_for_recursive_macros():
    m = collect_macros(r"\def\a{\b\b}\def\b{\a\a}")
    assert expand_macros(r"\a", m) == r"\a"


def test_unknown_macros_and_missing_arguments_stay():
    m = collect_macros(r"\newcommand{\norm}[1]{\|#1\|}")
    assert expand_macros(r"\frob{x} \norm", m) == r"\frob{x} \norm"


def test_theorem_declarations_all_forms():
    envs = parse_theorem_decls(
        r"""\theoremstyle{plain}\newtheorem{thm}{Theorem}[section]\newtheorem{lem}[thm]{Lemma}
        \newtheorem*{rem*}{Remark}\theoremstyle{definition}
        \declaretheorem[name=Definition,sibling=thm]{defn}\declaretheorem[name=Problem,numberwithin=chapter]{prob}
        \declaretheorem[name=\axiomname, unnumbered]{ax}\newtheorem{algo}{Algorithm}\newtheorem{proof}{Proof}"""
    )
    assert (envs["thm"].counter, envs["thm"].within, envs["thm"].style) == ("thm", "section", "plain")
    assert (envs["lem"].kind, envs["lem"].counter) == ("lemma", "thm")
    assert (envs["rem*"].kind, envs["rem*"].numbered) == ("remark", False)
    assert (envs["defn"].kind, envs["defn"].counter, envs["defn"].style) == ("definition", "thm", "definition")
    assert (envs["prob"].kind, envs["prob"].within) == ("exercise", "chapter")
    assert (envs["ax"].kind, envs["ax"].numbered) == ("axiom", False)
    assert envs["algo"].kind is None
    assert "proof" not in envs


def test_theorems_declared_through_a_wrapper_macro_share_the_alias_counter():
    text = r"""\def\defthm#1#2#3{\newaliascnt{#1}{thm}\newtheorem{#1}[#1]{#2}}
    \newtheorem{thm}{Theorem}[section]\defthm{lem}{Lemma}{Lemmas}\defthm{eg}{Example}{Examples}"""
    envs = parse_theorem_decls(text, wrappers=theorem_wrappers(text))
    assert (envs["lem"].kind, envs["lem"].counter) == ("lemma", "thm")
    assert (envs["eg"].kind, envs["eg"].counter) == ("example", "thm")


def test_kind_for_other_languages_and_macro_names():
    assert [kind_for(x) for x in ("Satz", "Korollar", "Définition", r"\corollaryname", "Bemerkung")] == [
        "theorem",
        "corollary",
        "definition",
        "corollary",
        "remark",
    ]
    assert kind_for("Algorithm") is None
