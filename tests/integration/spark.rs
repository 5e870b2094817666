//! The closure beyond one machine: `index build --export-links`, the large-star /
//! small-star closure of `scripts/spark/closure.py` on Spark in local mode
//! (PySpark from PyPI in the build directory's venv, Java from Debian), and
//! `index build --from-components`, which must write the index a build on one
//! machine writes from the same dumps (DBpedia's link sets, sameAs.cc classes,
//! Wikidata's Q42).

use std::path::Path;
use std::process::Command;

use qajudge::index::Index;

use crate::cli::{qajudge, stderr};
use crate::data::shared;
use crate::endpoint::venv_program;

fn meta_without_time(index: &Index) -> serde_json::Value {
    let mut meta = serde_json::to_value(index.meta()).expect("meta as json");
    meta.as_object_mut().expect("an object").remove("built_at");
    meta
}

#[test]
fn spark_components_build_the_index_one_machine_builds() {
    let Some(data) = shared() else { return };
    let Some(python) = venv_program("venv-spark/bin/python") else {
        return;
    };
    let rdf = data.join("rdf");
    let tmp = std::env::temp_dir().join(format!("qajudge-spark-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("a temporary directory");
    let (one, export, two) = (tmp.join("one"), tmp.join("export"), tmp.join("two"));
    let rdf_arg = rdf.to_str().expect("a UTF-8 path");

    let o = qajudge(&[
        "index",
        "build",
        "--lenient",
        "--out",
        one.to_str().unwrap(),
        rdf_arg,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = qajudge(&[
        "index",
        "build",
        "--lenient",
        "--export-links",
        export.to_str().unwrap(),
        rdf_arg,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for file in [
        "manifest.json",
        "links.parquet",
        "labels.parquet",
        "types.parquet",
    ] {
        assert!(export.join(file).is_file(), "{file} was not exported");
    }
    // before the closure ran, --from-components says what to do
    let o = qajudge(&[
        "index",
        "build",
        "--from-components",
        export.to_str().unwrap(),
        "--out",
        two.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("run scripts/spark/closure.py"),
        "{}",
        stderr(&o)
    );

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/spark/closure.py");
    let o = Command::new(&python)
        .arg(&script)
        .arg(&export)
        .args(["--master", "local[2]"])
        .output()
        .expect("python runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "closure.py failed: {err}");
    assert!(err.contains("rounds of large-star/small-star"), "{err}");

    let o = qajudge(&[
        "index",
        "build",
        "--from-components",
        export.to_str().unwrap(),
        "--out",
        two.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    let (a, b) = (Index::open(&one).unwrap(), Index::open(&two).unwrap());
    // `index info`: inputs, options, every count, the class-size histogram and
    // the largest classes with their ids
    assert_eq!(meta_without_time(&a), meta_without_time(&b));
    let classes = a.meta().counts.classes;
    assert!(classes > 500_000, "{classes} classes");
    // every class's members, then every member's sameas answer
    let mut iris = 0u64;
    for id in 0..u32::try_from(classes).unwrap() {
        let members = a.members(id).unwrap();
        assert_eq!(members, b.members(id).unwrap(), "class {id}");
        for iri in &members {
            assert_eq!(
                a.sameas(iri, usize::MAX).unwrap(),
                b.sameas(iri, usize::MAX).unwrap(),
                "{iri}"
            );
        }
        iris += members.len() as u64;
    }
    assert_eq!(iris, a.meta().counts.iris);
    // the label index is the same bytes
    for file in ["labels.fst", "labels.dat"] {
        assert_eq!(
            std::fs::read(one.join(file)).unwrap(),
            std::fs::read(two.join(file)).unwrap(),
            "{file}"
        );
    }
    for iri in [
        "http://www.wikidata.org/entity/Q42",
        "http://dbpedia.org/resource/Douglas_Adams",
    ] {
        assert_eq!(a.types(iri).unwrap(), b.types(iri).unwrap(), "{iri}");
        // the names, whose choice follows the label predicates' ranks, which
        // the export carries
        let names = a.names(iri).unwrap();
        assert!(!names.is_empty(), "{iri} has labels");
        assert_eq!(names, b.names(iri).unwrap(), "{iri}");
    }
    std::fs::remove_dir_all(&tmp).ok();
}
