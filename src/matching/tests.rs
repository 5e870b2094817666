//! Tests of the matching rules as a whole: keys, duplicates, the index rules and
//! the maximum matching.

use super::*;
use crate::index::Equivalence;
use crate::model::Term;
use crate::terms::literal::{parse_date, parse_number, year_of};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
use crate::model::Answer;

fn opts() -> MatchOptions {
    MatchOptions::default()
}
fn eq(a: &Term, b: &Term, o: MatchOptions) -> bool {
    let ga = prepare(&[Answer::single(a.clone())], o);
    let rb = prepare(&[Answer::single(b.clone())], o);
    let m1 = match_answers(&ga, &rb).expect("matched").tp() == 1;
    let m2 = match_answers(&rb, &ga).expect("matched").tp() == 1;
    assert_eq!(m1, m2, "equivalence must be symmetric: {a} vs {b}");
    m1
}
fn iri(s: &str) -> Term {
    Term::Iri(s.into())
}
fn xsd(t: &str) -> String {
    format!("{XSD}{t}")
}

#[test]
fn numbers_compare_by_value() {
    let three = Term::typed("3", xsd("integer"));
    assert!(eq(&three, &Term::plain("3"), opts()));
    assert!(eq(&three, &Term::plain("3.0"), opts()));
    assert!(eq(&three, &Term::typed("3.0E0", xsd("double")), opts()));
    assert!(eq(
        &Term::typed("3.0", xsd("decimal")),
        &Term::typed("3", xsd("int")),
        opts()
    ));
    assert!(!eq(&three, &Term::plain("4"), opts()));
    // two plain lexical forms compare as strings only
    assert!(!eq(&Term::plain("3"), &Term::plain("3.0"), opts()));
    // a number-shaped literal of another vocabulary against a typed number
    assert!(eq(
        &Term::typed("5000000.0", "http://dbpedia.org/datatype/usDollar"),
        &Term::typed("5.0E6", xsd("double")),
        opts()
    ));
    assert!(parse_number("inf").is_none());
    assert!(parse_number("NaN").is_none());
    assert!(parse_number("1,000").is_none());
}

#[test]
fn dates_compare_by_value() {
    let d = Term::typed("1961-08-04", xsd("date"));
    assert!(eq(&d, &Term::plain("1961-08-04T00:00:00Z"), opts()));
    assert!(eq(
        &d,
        &Term::typed("1961-08-04T00:00:00Z", xsd("dateTime")),
        opts()
    ));
    assert!(eq(
        &d,
        &Term::typed("1961-08-04T00:00:00", xsd("dateTime")),
        opts()
    ));
    assert!(!eq(&d, &Term::typed("1961-08-05", xsd("date")), opts()));
    assert!(!eq(
        &d,
        &Term::typed("1961-08-04T10:00:00Z", xsd("dateTime")),
        opts()
    ));
    let year = Term::typed("1961", xsd("gYear"));
    assert!(!eq(&d, &year, opts()));
    let lenient = MatchOptions {
        lenient_dates: true,
        ..opts()
    };
    assert!(eq(&d, &year, lenient));
    assert!(!eq(&Term::typed("1962-01-01", xsd("date")), &year, lenient));
    assert_eq!(parse_date("1961-13-04"), None);
    // never panics on non-ASCII text
    for s in [
        "滿洲航空株式會社",
        "1961-08-0é",
        "1961-08-04T10:00:00+0é:00",
        "é",
        "2020-01-01T空",
    ] {
        let _ = parse_date(s);
        let _ = parse_number(s);
        let _ = year_of(s);
    }
    assert_eq!(
        parse_date("1961-08-04T10:30:00.500+02:00").as_deref(),
        Some("1961-08-04T10:30:00.5+02:00")
    );
}

#[test]
fn booleans_any_case() {
    assert!(eq(&Term::Boolean(true), &Term::plain("TRUE"), opts()));
    assert!(eq(
        &Term::Boolean(false),
        &Term::typed("false", xsd("boolean")),
        opts()
    ));
    assert!(!eq(&Term::Boolean(true), &Term::Boolean(false), opts()));
    assert!(!eq(&Term::Boolean(true), &Term::plain("false"), opts()));
}

#[test]
fn strings_nfc_trim_case_lang() {
    let a = Term::Literal {
        lexical: "  Caf\u{65}\u{301}  au   lait ".into(),
        datatype: None,
        lang: Some("en".into()),
    };
    assert!(eq(&a, &Term::plain("CAFÉ AU LAIT"), opts()));
    let strict = MatchOptions {
        strict_literals: true,
        ..opts()
    };
    assert!(!eq(&a, &Term::plain("CAFÉ AU LAIT"), strict));
    assert!(eq(&a, &Term::plain("Café au lait"), strict));
    assert!(!eq(
        &Term::typed("3", xsd("integer")),
        &Term::plain("3.0"),
        strict
    ));
}

#[test]
fn iris_canonical_and_kinds_kept() {
    assert!(eq(
        &iri("https://en.wikipedia.org/wiki/Barack_Obama"),
        &iri("http://dbpedia.org/resource/Barack_Obama"),
        opts()
    ));
    assert!(!eq(
        &iri("http://dbpedia.org/resource/Barack_Obama"),
        &Term::plain("http://dbpedia.org/resource/Barack_Obama"),
        opts()
    ));
    assert!(!eq(
        &iri("http://dbpedia.org/resource/Barack_Obama"),
        &Term::plain("Barack Obama"),
        opts()
    ));
}

#[test]
fn duplicates_count_once() {
    let set = vec![
        Answer::single(Term::typed("3", xsd("integer"))),
        Answer::single(Term::typed("3.0", xsd("decimal"))),
        Answer::single(iri("http://dbpedia.org/page/X")),
        Answer::single(iri("http://dbpedia.org/resource/X")),
        Answer::single(iri("http://dbpedia.org/resource/X")),
    ];
    let p = prepare(&set, opts());
    assert_eq!(p.iter().map(|p| p.index).collect::<Vec<_>>(), vec![0, 2]);
    // rows that share a term are different answers; equal rows are one
    let row = |a: &str, b: &str| Answer {
        terms: vec![iri(a), iri(b)],
    };
    let rows = vec![
        row("http://e.org/film", "http://e.org/a"),
        row("http://e.org/film", "http://e.org/b"),
        row("http://e.org/b", "http://e.org/film"),
        row("http://e.org/c", "http://e.org/c"),
        Answer::single(iri("http://e.org/c")),
    ];
    let p = prepare(&rows, opts());
    assert_eq!(p.iter().map(|p| p.index).collect::<Vec<_>>(), vec![0, 1, 3]);
}

#[test]
fn alternatives_in_a_row() {
    let gold = vec![Answer {
        terms: vec![
            iri("http://dbpedia.org/resource/East_River"),
            Term::plain("East River"),
        ],
    }];
    let run = vec![Answer::single(Term::plain("east river"))];
    let m = match_answers(&prepare(&gold, opts()), &prepare(&run, opts())).expect("matched");
    assert_eq!((m.tp(), m.fp(), m.fn_()), (1, 0, 0));
    assert_eq!(m.pairs[0].reason, Reason::String);
}

#[test]
fn rows_sharing_one_value_link_every_pair_up_to_the_limit() {
    // gold rows [x, a_i] and run rows [x, b_j]: every run row links every gold row
    let rows = |side: &str, n: usize| -> Vec<Answer> {
        (0..n)
            .map(|i| Answer {
                terms: vec![
                    iri("http://e.org/x"),
                    iri(&format!("http://e.org/{side}{i}")),
                ],
            })
            .collect()
    };
    let g = prepare(&rows("a", 30), opts());
    let r = prepare(&rows("b", 30), opts());
    // 900 links: matched within 900, one to one (30 pairs), refused under it
    let m = match_answers_within(&g, &r, 900).expect("within the limit");
    assert_eq!(m.tp(), 30);
    let e = match_answers_within(&g, &r, 899).expect_err("past the limit");
    assert_eq!((e.gold, e.run, e.limit), (30, 30, 899));
    assert!(e.to_string().contains("more than 899 pairs"), "{e}");
}

#[test]
fn maximum_matching_not_greedy() {
    // run 0 can match gold 0 (via x) or gold 1 (via b); run 1 only gold 0.
    let gold = vec![
        Answer {
            terms: vec![iri("http://e.org/a"), iri("http://e.org/x")],
        },
        Answer::single(iri("http://e.org/b")),
    ];
    let run = vec![
        Answer {
            terms: vec![iri("http://e.org/x"), iri("http://e.org/b")],
        },
        Answer::single(iri("http://e.org/a")),
    ];
    let g = prepare(&gold, opts());
    let r = prepare(&run, opts());
    assert_eq!(match_answers(&g, &r).expect("matched").tp(), 2);
    // and the result does not depend on order
    let mut run_rev = run.clone();
    run_rev.reverse();
    assert_eq!(
        match_answers(&g, &prepare(&run_rev, opts()))
            .expect("matched")
            .tp(),
        2
    );
}

fn kg() -> crate::index::MemoryIndex {
    let mut m = crate::index::MemoryIndex::new();
    m.same_as(
        "http://dbpedia.org/resource/Barack_Obama",
        "http://www.wikidata.org/entity/Q76",
    )
    .same_as(
        "http://www.wikidata.org/entity/Q76",
        "http://rdf.freebase.com/ns/m.02mjmr",
    )
    .same_as(
        "http://dbpedia.org/resource/Honolulu",
        "http://www.wikidata.org/entity/Q18094",
    )
    .label("http://dbpedia.org/resource/Barack_Obama", "Barack Obama")
    .label("http://dbpedia.org/resource/Honolulu", "Honolulu")
    .label("http://www.wikidata.org/entity/Q18094", "Honolulu")
    .label("http://e.org/Honolulu_County", "Honolulu")
    .label("http://dbpedia.org/resource/Barack_Obama", "Obama")
    .label("http://dbpedia.org/resource/Michelle_Obama", "Obama");
    m
}

fn counts(
    gold: &[Answer],
    run: &[Answer],
    opts: MatchOptions,
    index: &dyn Equivalence,
) -> (usize, usize, usize, Vec<Reason>) {
    let r = Resolver::new(opts, Some(index));
    let g = r.prepare(gold, Side::Gold, true);
    let gold_iris = gold.iter().flat_map(|a| &a.terms).any(Term::is_iri);
    let m = match_answers(&g, &r.prepare(run, Side::Run, gold_iris)).expect("matched");
    (
        m.tp(),
        m.fp(),
        m.fn_(),
        m.pairs.iter().map(|p| p.reason).collect(),
    )
}

fn c3(gold: &[Answer], run: &[Answer], opts: MatchOptions, index: &dyn Equivalence) -> [usize; 3] {
    let (tp, fp, fn_, _) = counts(gold, run, opts, index);
    [tp, fp, fn_]
}

fn one(t: Term) -> Vec<Answer> {
    vec![Answer::single(t)]
}

#[test]
fn sameas_classes_with_an_index() {
    let kg = kg();
    let gold = one(iri("http://dbpedia.org/resource/Barack_Obama"));
    let (tp, fp, fn_, why) = counts(
        &gold,
        &one(iri("http://rdf.freebase.com/ns/m.02mjmr")),
        opts(),
        &kg,
    );
    assert_eq!((tp, fp, fn_), (1, 0, 0));
    assert_eq!(why, vec![Reason::SameAs { class_size: 3 }]);
    // without the index they differ
    assert!(!eq(
        &iri("http://dbpedia.org/resource/Barack_Obama"),
        &iri("http://rdf.freebase.com/ns/m.02mjmr"),
        opts()
    ));
    // one thing written twice in a run is one answer
    let run = vec![
        Answer::single(iri("http://www.wikidata.org/entity/Q76")),
        Answer::single(iri("https://www.wikidata.org/wiki/Q76")),
        Answer::single(iri("http://dbpedia.org/resource/Barack_Obama")),
    ];
    assert_eq!(c3(&gold, &run, opts(), &kg), [1, 0, 0]);
}

#[test]
fn label_rule_counts_one_answer() {
    let kg = kg();
    // a string against IRI gold: one answer, matched through a label
    let gold = one(iri("http://www.wikidata.org/entity/Q18094"));
    let (tp, fp, fn_, why) = counts(&gold, &one(Term::plain("honolulu")), opts(), &kg);
    assert_eq!((tp, fp, fn_, why), (1, 0, 0, vec![Reason::Label]));
    // an IRI against string gold
    let (tp, fp, fn_, _) = counts(
        &one(Term::plain("Barack Obama")),
        &one(iri("http://www.wikidata.org/entity/Q76")),
        opts(),
        &kg,
    );
    assert_eq!((tp, fp, fn_), (1, 0, 0));
    // an ambiguous label is still one answer: it matches one gold IRI at most
    let gold = vec![
        Answer::single(iri("http://dbpedia.org/resource/Barack_Obama")),
        Answer::single(iri("http://dbpedia.org/resource/Michelle_Obama")),
    ];
    let (tp, fp, fn_, _) = counts(&gold, &one(Term::plain("Obama")), opts(), &kg);
    assert_eq!((tp, fp, fn_), (1, 0, 1));
    // a label that finds nothing is a false positive
    let (tp, fp, _, _) = counts(&gold, &one(Term::plain("Hillary")), opts(), &kg);
    assert_eq!((tp, fp), (0, 1));
    // two strings never match through an IRI they both label
    let (tp, _, _, _) = counts(
        &one(Term::plain("Barack Obama")),
        &one(Term::plain("Obama")),
        opts(),
        &kg,
    );
    assert_eq!(tp, 0);
}

#[test]
fn gerbil_counts_every_label_candidate() {
    let kg = kg();
    let gerbil = MatchOptions {
        strict_literals: true,
        iri: IriRule::RunClosure,
        literal: LiteralRule::Exact,
        label: LabelRule::EachCandidate,
        ..opts()
    };
    // "Honolulu" labels three IRIs: one TP at most, the other two are FPs
    let gold = one(iri("http://dbpedia.org/resource/Honolulu"));
    let (tp, fp, fn_, _) = counts(&gold, &one(Term::plain("Honolulu")), gerbil, &kg);
    assert_eq!((tp, fp, fn_), (1, 2, 0));
    // the same under judge: one answer, one TP
    assert_eq!(
        c3(&gold, &one(Term::plain("Honolulu")), opts(), &kg),
        [1, 0, 0]
    );
    // nothing found: the string itself, one FP
    let (tp, fp, _, _) = counts(&gold, &one(Term::plain("Hono")), gerbil, &kg);
    assert_eq!((tp, fp), (0, 1));
    // the run's IRI is expanded through its class
    assert_eq!(
        c3(
            &gold,
            &one(iri("http://www.wikidata.org/entity/Q18094")),
            gerbil,
            &kg
        ),
        [1, 0, 0]
    );
    // the gold's is not: an https gold IRI is not a member as written
    let https_gold = one(iri("https://dbpedia.org/resource/Honolulu"));
    let run = one(iri("http://www.wikidata.org/entity/Q18094"));
    assert_eq!(c3(&https_gold, &run, gerbil, &kg), [0, 1, 1]);
    assert_eq!(c3(&https_gold, &run, opts(), &kg), [1, 0, 0]);
    // literals are exact strings
    let three = one(Term::typed("3", xsd("integer")));
    assert_eq!(c3(&three, &one(Term::plain("3.0")), gerbil, &kg), [0, 1, 1]);
    assert_eq!(c3(&three, &one(Term::plain("3")), gerbil, &kg), [1, 0, 0]);
}
