//! The index recipes of `indexes/` end to end, offline: `indexes/fetch.sh` with
//! `--mirror` pointed at a mirror of small real samples (the DBpedia–GND link
//! sets as published, Wikidata's Q42 and small dump written as the N-Triples of
//! the full dump), and the indexes they build answer the expected `sameas`,
//! labels and types. Without network a recipe fails at once naming its URLs; a
//! damaged dump leaves the previous index as it was.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use oxrdfio::{RdfFormat, RdfParser, RdfSerializer};
use qajudge::index::Index;

use crate::require_data;

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("recipes");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

fn bzip2_file(path: &Path, text: &[u8]) {
    let file = std::fs::File::create(path).expect("mirror file");
    let mut enc = bzip2::write::BzEncoder::new(file, bzip2::Compression::fast());
    enc.write_all(text).expect("compressed");
    enc.finish().expect("compressed");
}

fn gzip_file(path: &Path, text: &[u8]) {
    let file = std::fs::File::create(path).expect("mirror file");
    let mut enc = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    enc.write_all(text).expect("compressed");
    enc.finish().expect("compressed");
}

/// The N-Triples of Turtle files, as a full Wikidata dump writes them.
fn ntriples_of(files: &[PathBuf]) -> Vec<u8> {
    let mut out = RdfSerializer::from_format(RdfFormat::NTriples).for_writer(Vec::new());
    for file in files {
        let text = std::fs::File::open(file).expect("sample");
        for quad in RdfParser::from_format(RdfFormat::Turtle).for_reader(text) {
            out.serialize_quad(&quad.expect("the sample parses"))
                .expect("written");
        }
    }
    out.finish().expect("written")
}

/// The mirror the recipes read in these tests: every dump of `dumps.sh` under
/// its published name.
fn mirror(data: &Path) -> &'static Path {
    static MIRROR: OnceLock<PathBuf> = OnceLock::new();
    MIRROR.get_or_init(|| {
        let dir = tmp("mirror");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("dnb")).expect("mirror dir");
        let links = data.join("rdf/dbpedia-links");
        // published files as they are (in a subfolder: the recipes search below --mirror)
        for (from, to) in [
            ("dbpedia.org/dnb/dnb-links.nt.bz2", "dnb/dnb-links.nt.bz2"),
            (
                "dbpedia.org/dnb/dnb-extended-links.nt.bz2",
                "dnb/dnb-extended-links.nt.bz2",
            ),
            (
                "xxx.dbpedia.org/de/dnb/de_dnb-wikidata-links.nt.bz2",
                "de_dnb-wikidata-links.nt.bz2",
            ),
        ] {
            std::os::unix::fs::symlink(links.join(from), dir.join(to)).expect("symlink");
        }
        let wikidata = data.join("rdf/wikidata");
        gzip_file(
            &dir.join("latest-all.nt.gz"),
            &ntriples_of(&[wikidata.join("Q42.ttl"), wikidata.join("small_dump.ttl")]),
        );
        let interlanguage = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/recipes/interlanguage-links_lang=en.nt"),
        )
        .expect("fixture");
        bzip2_file(
            &dir.join("interlanguage-links_lang=en.ttl.bz2"),
            &interlanguage,
        );
        dir
    })
}

fn fetch(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg("indexes/fetch.sh")
        .args(args)
        .args(["--qajudge", env!("CARGO_BIN_EXE_qajudge")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_CACHE_HOME", tmp("cache"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("bash runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a recipe on the mirror into a fresh directory and opens the index.
fn build_recipe(data: &Path, recipe: &str) -> Index {
    let out = tmp(&format!("index-{recipe}"));
    let _ = std::fs::remove_dir_all(&out);
    let o = fetch(
        &[
            recipe,
            "--out",
            out.to_str().expect("utf-8 path"),
            "--mirror",
            mirror(data).to_str().expect("utf-8 path"),
        ],
        &[],
    );
    assert!(o.status.success(), "recipe {recipe}: {}", stderr(&o));
    Index::open(&out).expect("the index opens")
}

fn members(index: &Index, iri: &str) -> Vec<String> {
    index.sameas(iri, 1000).expect("lookup").members
}

const Q42: &str = "http://www.wikidata.org/entity/Q42";
const EN_WIKIPEDIA: &str = "https://en.wikipedia.org/wiki/Douglas_Adams";
const DE_WIKIPEDIA: &str = "https://de.wikipedia.org/wiki/Douglas_Adams";
const DBR: &str = "http://dbpedia.org/resource/Douglas_Adams";
const DE_DBPEDIA: &str = "http://de.dbpedia.org/resource/Douglas_Adams";
const FREEBASE: &str = "http://rdf.freebase.com/ns/m.0282x";
const GND: &str = "http://d-nb.info/gnd/119033364";

fn same(index: &Index, a: &str, b: &str) -> bool {
    let (x, y) = (
        index.sameas(a, 1).expect("lookup"),
        index.sameas(b, 1).expect("lookup"),
    );
    x.class.is_some() && x.class == y.class
}

#[test]
fn every_single_recipe_links_what_it_says_and_nothing_else() {
    let data = require_data!();

    let wikipedia = build_recipe(&data, "wikipedia-wikidata");
    assert!(same(&wikipedia, Q42, EN_WIKIPEDIA));
    assert!(same(&wikipedia, Q42, DE_WIKIPEDIA));
    // 86 of its 123 sitelinks are Wikipedias (the others Wikiquote, Wikisource …)
    assert_eq!(members(&wikipedia, Q42).len(), 87);
    assert!(!same(&wikipedia, Q42, FREEBASE), "only sitelinks are kept");
    // a Wikidata redirect (owl:sameAs in the dump) is not a sitelink
    assert!(!same(
        &wikipedia,
        "http://www.wikidata.org/entity/Q6825",
        "http://www.wikidata.org/entity/Q26709563"
    ));

    let freebase = build_recipe(&data, "freebase-wikidata");
    assert_eq!(members(&freebase, Q42), vec![FREEBASE, Q42]);

    let dbpedia = build_recipe(&data, "dbpedia-wikidata");
    // through the GND record both link to: DBpedia's link set, Wikidata's wdtn:P227
    // written https:// and brought to DBpedia's http:// by the recipe
    assert!(same(&dbpedia, Q42, DBR));
    assert!(same(&dbpedia, Q42, GND));
    assert!(!same(&dbpedia, Q42, FREEBASE));
    // DBpedia's own owl:sameAs to Wikidata
    assert!(same(
        &dbpedia,
        "http://dbpedia.org/resource/Berlin",
        "http://www.wikidata.org/entity/Q64"
    ));

    let languages = build_recipe(&data, "dbpedia-languages");
    assert!(same(&languages, DBR, DE_DBPEDIA), "through GND");
    assert!(same(
        &languages,
        "http://dbpedia.org/resource/Berlin",
        "http://fr.dbpedia.org/resource/Berlin"
    ));
    assert!(!same(&languages, DBR, Q42), "no Wikidata dump is read");

    let labels = build_recipe(&data, "labels-types");
    let hits = labels
        .labels("Douglas Adams", Some("en"), 0)
        .expect("lookup");
    assert!(hits.iter().any(|h| h.iri == Q42), "{hits:?}");
    let hits = labels
        .labels("Дуглас Адамс", Some("ru"), 0)
        .expect("lookup");
    assert!(hits.iter().any(|h| h.iri == Q42), "{hits:?}");
    // Polish is not among the default languages
    assert!(labels
        .labels("Douglas Adams", Some("pl"), 0)
        .expect("lookup")
        .is_empty());
    assert!(labels
        .types(Q42)
        .expect("lookup")
        .contains(&"http://www.wikidata.org/entity/Q5".to_string()));
    assert!(members(&labels, Q42).len() <= 1, "no links are kept");
}

#[test]
fn the_qald_recipes_make_one_class_of_every_name_of_q42() {
    let data = require_data!();
    let qald = build_recipe(&data, "qald");
    let class = members(&qald, Q42);
    for iri in [EN_WIKIPEDIA, DE_WIKIPEDIA, DBR, DE_DBPEDIA, FREEBASE, GND] {
        assert!(class.iter().any(|m| m == iri), "{iri} not in {class:?}");
    }
    assert!(qald
        .types(Q42)
        .expect("lookup")
        .contains(&"http://www.wikidata.org/entity/Q5".to_string()));

    // provenance: the recipe, each dump with its checksum
    let meta = qald.meta();
    let provenance = meta.provenance.as_ref().expect("provenance recorded");
    assert_eq!(provenance["recipe"], "qald");
    let dumps = provenance["dumps"].as_array().expect("dumps");
    assert_eq!(dumps.len(), 5, "{dumps:?}");
    let dnb = dumps
        .iter()
        .find(|d| d["file"] == "dnb-links.nt.bz2")
        .expect("dnb-links");
    assert_eq!(
        dnb["checksum"],
        "sha256 matches the one pinned for this immutable version"
    );
    assert_eq!(
        dnb["sha256"],
        "8e89c734554be532a97ff860dcb35abe91d55961048af888693fd543acde6842"
    );
    assert_eq!(dnb["version"], "dbpedia/links@9863694");

    let qald10 = build_recipe(&data, "qald10");
    let class = members(&qald10, Q42);
    for iri in [EN_WIKIPEDIA, DE_WIKIPEDIA, DBR, FREEBASE] {
        assert!(class.iter().any(|m| m == iri), "{iri} not in {class:?}");
    }
    assert!(!class.iter().any(|m| m == DE_DBPEDIA), "no German DBpedia");
}

#[test]
fn without_network_a_recipe_fails_at_once_naming_its_urls() {
    let downloads = tmp("no-downloads");
    let _ = std::fs::remove_dir_all(&downloads);
    let out = tmp("offline-index");
    // a proxy on a closed loopback port stands for a machine without network
    let proxy = "http://127.0.0.1:9";
    let o = fetch(
        &[
            "qald",
            "--out",
            out.to_str().expect("utf-8"),
            "--downloads",
            downloads.to_str().expect("utf-8"),
        ],
        &[
            ("https_proxy", proxy),
            ("http_proxy", proxy),
            ("HTTPS_PROXY", proxy),
            ("ALL_PROXY", proxy),
        ],
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("cannot reach https://"), "{err}");
    assert!(
        err.contains("https://dumps.wikimedia.org/wikidatawiki/entities/latest-all.nt.gz"),
        "{err}"
    );
    assert!(err.contains("--mirror DIR"), "{err}");
    assert!(!out.exists());
    assert!(!downloads.exists(), "nothing was downloaded");

    // a mirror that lacks a dump names it
    let empty = tmp("empty-mirror");
    std::fs::create_dir_all(&empty).expect("dir");
    let o = fetch(
        &[
            "freebase-wikidata",
            "--out",
            out.to_str().expect("utf-8"),
            "--mirror",
            empty.to_str().expect("utf-8"),
        ],
        &[],
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("latest-all.nt.gz (wikidata-all"), "{err}");

    let o = fetch(&["no-such-recipe", "--out", "x"], &[]);
    assert!(
        stderr(&o).contains("no recipe 'no-such-recipe'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_damaged_dump_leaves_the_previous_index_as_it_was() {
    let data = require_data!();
    let good = mirror(&data);
    let out = tmp("index-kept");
    let _ = std::fs::remove_dir_all(&out);
    let run = |m: &Path| {
        fetch(
            &[
                "freebase-wikidata",
                "--out",
                out.to_str().expect("utf-8"),
                "--mirror",
                m.to_str().expect("utf-8"),
            ],
            &[],
        )
    };
    let o = run(good);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read_to_string(out.join("meta.json")).expect("meta");

    // the Wikidata dump cut in the middle: gzip fails, the build is not kept
    let bad = tmp("mirror-truncated");
    let _ = std::fs::remove_dir_all(&bad);
    std::fs::create_dir_all(&bad).expect("dir");
    let whole = std::fs::read(good.join("latest-all.nt.gz")).expect("dump");
    std::fs::write(bad.join("latest-all.nt.gz"), &whole[..whole.len() / 2]).expect("write");
    let o = run(&bad);
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("latest-all.nt.gz"), "{err}");
    assert!(err.contains("unchanged"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("meta.json")).expect("meta"),
        before
    );
    let index = Index::open(&out).expect("the previous index opens");
    assert_eq!(members(&index, Q42), vec![FREEBASE, Q42]);

    // a dump whose published checksum does not match stops before any build
    let bad = tmp("mirror-checksum");
    let _ = std::fs::remove_dir_all(&bad);
    std::fs::create_dir_all(&bad).expect("dir");
    std::fs::write(bad.join("dnb-links.nt.bz2"), b"not the published file").expect("write");
    for f in ["latest-all.nt.gz", "interlanguage-links_lang=en.ttl.bz2"] {
        std::fs::copy(good.join(f), bad.join(f)).expect("copy");
    }
    std::os::unix::fs::symlink(
        data.join("rdf/dbpedia-links/dbpedia.org/dnb/dnb-extended-links.nt.bz2"),
        bad.join("dnb-extended-links.nt.bz2"),
    )
    .expect("symlink");
    let o = fetch(
        &[
            "dbpedia-wikidata",
            "--out",
            out.to_str().expect("utf-8"),
            "--mirror",
            bad.to_str().expect("utf-8"),
        ],
        &[],
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("pinned 8e89c734"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("meta.json")).expect("meta"),
        before
    );
}
